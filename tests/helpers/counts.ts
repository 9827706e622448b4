/** What `counts` must say for this `content` (docs/api.md, ContentIndex), computed independently of the build. */
export function countsOf(content: readonly { type: string }[]) {
  const of = (type: string) => content.filter((i) => i.type === type).length;
  return { posts: of('post'), projects: of('project'), tips: of('tip'), total: content.length };
}
