// Pages Function for /api/*: deprecated versions' headers, 410 for withdrawn ones, 404 problems.
// Written by `content-index init`; the handler ships in the content-index package.
export { onRequest } from 'content-index/functions/api';
