import { defineHeaders } from 'content-index';

// The API versions and the header policy of the API routes. See "Publishing a new version" in
// docs/versions.md for what to change here when v2 ships, and what clients see on which date.
export default defineHeaders({
  versions: {
    v1: { published: '2025-01-15' },
  },
  // The default policy, spelled out: docs/configuration.md says why.
  cacheControl: { maxAge: 300, staleWhileRevalidate: 3600 },
});
