import type { Link, List, Nodes, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toString as mdToString } from 'mdast-util-to-string';

export interface LlmsLink {
  title: string;
  url: string;
  description?: string;
}

export interface ParsedLlmsTxt {
  title: string;
  summary: string;
  /** Blocks between the blockquote and the first H2 (paragraphs, as text). */
  details: string[];
  sections: { name: string; links: LlmsLink[] }[];
  /** Every link anywhere in the file. */
  allLinks: string[];
}

/**
 * Parses an llms.txt with a CommonMark parser (micromark) and checks the llmstxt.org structure strictly:
 * H1, blockquote, non-heading blocks, then H2 sections each holding one list of
 * `[title](url): description` items whose text carries no markup. Throws on anything else, so a
 * title that leaked Markdown fails the test that parses it.
 */
export function parseLlmsTxt(text: string): ParsedLlmsTxt {
  const tree: Root = fromMarkdown(text);
  const nodes = [...tree.children];
  const fail = (why: string, node?: Nodes): never => {
    throw new Error(
      `llms.txt: ${why}${node ? ` at line ${node.position?.start.line}: ${JSON.stringify(mdToString(node))}` : ''}`,
    );
  };
  const h1 = nodes.shift();
  if (h1?.type !== 'heading' || h1.depth !== 1) return fail('must start with an H1', h1);
  const quote = nodes.shift();
  if (quote?.type !== 'blockquote' || quote.children.length !== 1)
    return fail('H1 must be followed by a one-paragraph blockquote', quote);
  const details: string[] = [];
  while (nodes[0] && nodes[0].type !== 'heading') {
    const node = nodes.shift() as Nodes;
    if (node.type !== 'paragraph')
      fail('only paragraphs may stand between the blockquote and the sections', node);
    details.push(mdToString(node));
  }
  const sections: ParsedLlmsTxt['sections'] = [];
  while (nodes.length > 0) {
    const heading = nodes.shift();
    if (heading?.type !== 'heading' || heading.depth !== 2) return fail('expected an H2 section', heading);
    const list = nodes.shift();
    if (list?.type !== 'list' || list.ordered) return fail('an H2 must be followed by a bullet list', list);
    sections.push({
      name: mdToString(heading),
      links: (list as List).children.map((item) => linkItem(item, fail)),
    });
  }
  const allLinks: string[] = [];
  const visit = (node: Nodes) => {
    if (node.type === 'link') allLinks.push(node.url);
    if ('children' in node) for (const child of node.children) visit(child as Nodes);
  };
  visit(tree);
  return { title: mdToString(h1), summary: mdToString(quote), details, sections, allLinks };
}

function linkItem(item: List['children'][number], fail: (why: string, node?: Nodes) => never): LlmsLink {
  const [paragraph, ...rest] = item.children;
  if (paragraph?.type !== 'paragraph' || rest.length > 0)
    return fail('a list item must be one paragraph', item);
  const [link, ...after] = paragraph.children;
  if (link?.type !== 'link') return fail('a list item must start with a link', item);
  if (!(link as Link).children.every((c) => c.type === 'text'))
    return fail('markup inside a link title', item);
  if (!after.every((c) => c.type === 'text')) return fail('markup inside a description', item);
  const tail = after.map((c) => (c.type === 'text' ? c.value : '')).join('');
  if (tail !== '' && !tail.startsWith(': '))
    return fail('a link must be followed by ": description" or nothing', item);
  const result: LlmsLink = { title: mdToString(link), url: link.url };
  if (tail) result.description = tail.slice(2);
  return result;
}
