/**
 * What one request to `/mcp` may cost. A Worker request on the free plan has 10 ms of CPU, and no single
 * request, however it is built, should cost more than about 50 ms at the largest sites either backend
 * serves (`npm run bench` measures the worst one). Without a budget a single request could: a batch of
 * 100 searches of ten words in every item, with `limit: 100`, took seconds of CPU and returned 15 MB.
 *
 * - `batch`: JSON-RPC messages in one POST (only 2025-03-26 clients batch), refused as a whole with the
 *   protocol's invalid-request error before any runs (http.ts);
 * - `items`: the items the calls of one request may ask for, the sum of their `limit` (defaults
 *   included): a call that would pass it is refused before it runs;
 * - `resultBytes`: the UTF-8 bytes of the calls' results (their JSON) in one request: a result that would
 *   pass it is refused instead of returned;
 * - `searchWork`: word matches a request's searches may score on the embedded backend (each is an item's
 *   field holding one of the query's words, its prefixes or one-typo variants): a search that would
 *   score more stops there and is refused. On D1 the matching is done by the database, not by the
 *   Function's CPU, and is not counted.
 *
 * The refusals are tool errors (`isError: true`) that name the limit and say what to do; the calls
 * before them in the same request keep their answers. Over stdio each call has a budget of its own.
 */
export const REQUEST_LIMITS = {
  batch: 10,
  items: 200,
  resultBytes: 512 * 1024,
  searchWork: 40_000,
} as const;

export type RequestLimits = { [K in keyof typeof REQUEST_LIMITS]: number };

/** A call the request's budget cannot pay for. Its message is the tool error an agent reads. */
export class BudgetExceeded extends Error {}

/**
 * Thrown by a search whose meter passed the budget (search-index.ts); the tools turn it into the
 * budget's error. `left`: the work the budget had left when the search started.
 */
export class SearchWorkExceeded extends Error {
  constructor(readonly left: number) {
    super(`search work over ${left}`);
  }
}

const encoder = new TextEncoder();

/**
 * Counts a search's work as it is done: the search calls `spend` for every word match it scores, and
 * `spend` throws {@link SearchWorkExceeded} the moment the request's budget is passed. The work is
 * charged to the request there and then, not after the search returns: the calls of a batch run
 * interleaved (each awaits between claiming and answering), so a budget read before a search and
 * charged after it would let every search of a batch have all of it.
 */
export interface WorkMeter {
  spend(matches: number): void;
}

/** One request's budget: the tools claim from it before they run, and the server charges their results. */
export class RequestBudget {
  private items = 0;
  private bytes = 0;
  private work = 0;

  constructor(readonly limits: RequestLimits = REQUEST_LIMITS) {}

  /** Before a call runs: the items it may return (its `limit`). */
  claimItems(tool: string, limit: number): void {
    const { items } = this.limits;
    if (this.items + limit > items) {
      const left = items - this.items;
      throw new BudgetExceeded(
        `Request budget: ${tool}: this request has already asked for ${this.items} items, and one request may ask for at most ${items} (the sum of its calls' limit). Send this call in another request${left > 0 ? `, or lower limit to ${left} or less` : ''}.`,
      );
    }
    this.items += limit;
  }

  /** How much search work the request has left. */
  get searchWorkLeft(): number {
    return Math.max(0, this.limits.searchWork - this.work);
  }

  /**
   * A meter for one search, charging this request's budget as the search goes. Past the budget it
   * throws SearchWorkExceeded (carrying what the request had left when this search started), and the
   * budget is spent: the request's later searches are refused before they score anything.
   */
  searchMeter(): WorkMeter {
    const limit = this.limits.searchWork;
    const left = this.searchWorkLeft;
    return {
      spend: (matches) => {
        if (this.work + matches > limit) {
          this.work = limit;
          throw new SearchWorkExceeded(left);
        }
        this.work += matches;
      },
    };
  }

  /** A search that stopped past its budget: the error to give for it (`left`: when it started). */
  searchTooBroad(tool: string, left: number): BudgetExceeded {
    const { searchWork } = this.limits;
    this.work = searchWork;
    const allowed =
      left === searchWork
        ? `the ${searchWork} word matches one request may score`
        : `the ${left} word matches this request had left (one request may score ${searchWork})`;
    return new BudgetExceeded(
      `Request budget: ${tool}: this search would score more than ${allowed}: its words are in very many items. Use fewer or more specific words, or filter by type or lang; in a batch, send the other searches in separate requests.`,
    );
  }

  /** After a call: its result's JSON, refused if it would take the request past its bytes. */
  chargeResult(tool: string, json: string): void {
    const { resultBytes } = this.limits;
    const size = encoder.encode(json).byteLength;
    if (this.bytes + size > resultBytes) {
      throw new BudgetExceeded(
        `Request budget: ${tool}: this result (${size} bytes) would bring the request's results past ${resultBytes} bytes, the most one request may return. Send this call in another request, or ask for fewer items (limit).`,
      );
    }
    this.bytes += size;
  }
}
