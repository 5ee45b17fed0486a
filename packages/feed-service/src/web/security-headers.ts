/**
 * Headers every page carries. The Content-Security-Policy allows the service's own origin only and
 * no inline script or style at all ('unsafe-inline' nowhere): even if some feed text escaped the
 * templates, a browser would refuse to run it. The rest keeps pages out of frames and stops
 * browsers from second-guessing content types.
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const pageSecurityHeaders: Readonly<Record<string, string>> = {
  "Content-Security-Policy": contentSecurityPolicy,
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  // Post links leave through /click; the destination learns the site, not the page or the search.
  "Referrer-Policy": "strict-origin-when-cross-origin",
};
