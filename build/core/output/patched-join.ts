/**
 * The name of a join of `file` written into the output folder `outputs`, or none (a plain join) when
 * no later build in this process will patch it (RenderContext.outputs unset).
 */
export function joinName(outputs: string | undefined, file: string): string | undefined {
  return outputs === undefined ? undefined : `${outputs}\u0000${file}`;
}

/**
 * `pieces.join(separator)`, made from the last join of that name when few pieces changed since: the
 * text before, between and after the changed pieces is taken from it as slices, not copied piece by
 * piece. dev joins the index and each llms.txt again at every save, though an edit changes one item's
 * pieces: at 10,000 items the index's join was some 12 ms of a save's 80. The result is the join's
 * text whatever the last one was: a piece counts as unchanged only when it is equal to the one at its
 * place (equal strings, the same object for an item the build kept). Without a name, a plain join.
 */
export function patchedJoin(name: string | undefined, pieces: readonly string[], separator: string): string {
  // Unnamed: a join no later one will be patched from (a one-shot build's), kept by no one.
  if (name === undefined) return pieces.join(separator);
  const last = LAST.get(name);
  const made = last ? patched(last, pieces, separator) : undefined;
  const text = made ?? pieces.join(separator);
  if (!last && LAST.size >= NAMES) LAST.clear();
  LAST.set(name, { pieces, separator, text });
  return text;
}

interface Join {
  pieces: readonly string[];
  separator: string;
  text: string;
}

// One join per name, the last: a process builds one site, and names a few outputs (its versions'
// indexes, its languages' llms.txt). Bounded for one that builds many (the tests).
const LAST = new Map<string, Join>();
const NAMES = 64;

/** Beyond this share of the pieces changed, a join of them all is as quick as the slices. */
const MOST = 8;

/** The text with the changed pieces replaced in the last one, or undefined when a join is as good. */
function patched(last: Join, pieces: readonly string[], separator: string): string | undefined {
  if (last.separator !== separator || last.pieces.length !== pieces.length || pieces.length === 0) return;
  const limit = Math.max(1, Math.floor(pieces.length / MOST));
  const changed: number[] = [];
  for (let i = 0; i < pieces.length; i++) {
    if (pieces[i] !== last.pieces[i]) {
      changed.push(i);
      if (changed.length > limit) return;
    }
  }
  if (changed.length === 0) return last.text;
  // Each piece's place in the last text: after its pieces before and their separators.
  const out: string[] = [];
  let at = 0;
  let from = 0;
  let k = 0;
  for (const i of changed) {
    for (; k < i; k++) at += (last.pieces[k] as string).length + separator.length;
    out.push(last.text.slice(from, at), pieces[i] as string);
    from = at + (last.pieces[i] as string).length;
  }
  out.push(last.text.slice(from));
  return out.join('');
}
