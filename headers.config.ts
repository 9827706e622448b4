import { defineHeaders } from 'content-index';

// The API versions and the header policy of the API routes. See the README's "Publishing a new
// version" for what to change here when v2 ships, and what clients see on which date.
export default defineHeaders({
  versions: {
    v1: { published: '2025-01-15' },
  },
  // The default policy, spelled out: see "Response headers and caching" in the README for why.
  cacheControl: { maxAge: 300, staleWhileRevalidate: 3600 },
});
