// The v1 body's item, defined here so that the MCP Function's answers (which carry exactly these items)
// need nothing from the serializer, which the Functions never run.
export interface ContentItemV1 {
  type: 'post' | 'project' | 'tip';
  title: string;
  description?: string;
  url: string;
  url_en?: string;
  url_pt?: string;
  image?: string;
  technologies?: string[];
}
