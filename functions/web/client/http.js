// The one place the client talks HTTP: JSON in and out, the user's token on the operations
// that take it, and every failure turned into an ApiError a person can read.

/**
 * Options every generated API function takes.
 * @typedef {Object} RequestOptions
 * @property {AbortSignal} [signal] Cancels the request (the view navigated away).
 * @property {RequestCache} [cache] The browser cache's mode, e.g. "no-cache" to revalidate
 *   a list the API lets caches keep, right after the user changed it.
 * @property {(headers: Headers) => void} [onHeaders] Given a successful answer's headers (the
 *   timeline's next page is named by its `X-Next-Cursor`).
 * @property {boolean} [text] Resolve to the answer's text (an OPML file), not its JSON.
 */

/**
 * @typedef {Object} RequestInit
 * @property {AbortSignal} [signal]
 * @property {RequestCache} [cache]
 * @property {(headers: Headers) => void} [onHeaders]
 * @property {unknown} [body] Sent as JSON.
 * @property {FormData} [form] Sent as multipart/form-data (the browser writes the boundary).
 * @property {Object<string, unknown>} [query] Empty values are left out.
 * @property {"required"|"optional"} [auth] Whether the operation takes the user's token.
 * @property {boolean} [text] Resolve to the answer's text (an OPML file), not its JSON.
 */

/** An error answer of the API, or a failure to reach it. */
export class ApiError extends Error {
  /**
   * @param {number} status The HTTP status; 0 when the server could not be reached.
   * @param {string} message The server's message, or one written here.
   * @param {string[]} [details] The server's `field: reason` entries.
   */
  constructor(status, message, details = []) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.details = details;
  }

  /**
   * The `details` entries as field → reason.
   * @returns {Map<string, string>}
   */
  fieldErrors() {
    const fields = new Map();
    for (const entry of this.details) {
      const at = entry.indexOf(": ");
      if (at > 0) {
        fields.set(entry.slice(0, at), entry.slice(at + 2));
      }
    }
    return fields;
  }
}

/** @type {() => (string|null)} */
let tokenSource = () => null;
/** @type {(token: string, message: string) => void} */
let onRejectedToken = () => {};

/**
 * Where the user's token comes from, and what to do when the API rejects it (given the token
 * it rejected and the API's reason, e.g. "The session has ended: sign in again").
 * @param {() => (string|null)} source
 * @param {(token: string, message: string) => void} rejected
 */
export function configureAuth(source, rejected) {
  tokenSource = source;
  onRejectedToken = rejected;
}

/**
 * One API call.
 * @param {string} method
 * @param {string} path
 * @param {RequestInit} [init]
 * @returns {Promise<any>} The JSON body, or null for an empty answer.
 */
export async function request(method, path, init = {}) {
  const url = new URL(path, window.location.origin);
  for (const [key, value] of Object.entries(init.query ?? {})) {
    // An array is the parameter repeated (`sourceId=a&sourceId=b`).
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one !== undefined && one !== null && one !== "") {
        url.searchParams.append(key, String(one));
      }
    }
  }
  /** @type {Record<string, string>} */
  const headers = { accept: init.text ? "*/*" : "application/json" };
  const token = init.auth ? tokenSource() : null;
  if (init.auth === "required" && !token) {
    throw new ApiError(401, "Log in to do this.");
  }
  if (token) {
    headers.authorization = `Bearer ${token}`;
  }
  /** @type {string|FormData|undefined} */
  let body;
  if (init.form !== undefined) {
    body = init.form;
  } else if (init.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.body);
  }

  let response;
  try {
    response = await fetch(url, { method, headers, body, signal: init.signal, cache: init.cache });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") {
      throw error;
    }
    throw new ApiError(0, "Could not reach the server. Check your connection and try again.");
  }

  const text = await response.text();
  const data = parsed(text);
  if (response.ok) {
    init.onHeaders?.(response.headers);
    return init.text ? text : data;
  }
  throw refusal(response, data, token);
}

/**
 * `text` as JSON, or null.
 * @param {string} text
 */
function parsed(text) {
  if (!text) {
    return null;
  }
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * The ApiError of a refused call (`data` its JSON body, if any); a rejected `token` is
 * reported.
 * @param {Response} response
 * @param {any} data
 * @param {string|null} token
 */
function refusal(response, data, token) {
  const message =
    data && typeof data.message === "string" && data.message
      ? data.message
      : `The server answered ${response.status} ${response.statusText}`.trim();
  if (response.status === 401 && token) {
    onRejectedToken(token, message);
  }
  const details = Array.isArray(data?.details)
    ? data.details.filter((/** @type {unknown} */ d) => typeof d === "string")
    : reasonDetails(message);
  return new ApiError(response.status, message, details);
}

/** The HTTP API's prefix of the streamed operations. */
const STREAM_PATH = "/api/ai/stream/";

/**
 * Where the page says the streamed operations are served (`<meta name="genai-stream-url">`,
 * the GenAI function URL's `stream/`: deployed, the HTTP API would buffer the stream), or null.
 * @returns {string|null}
 */
function streamBase() {
  return document.querySelector('meta[name="genai-stream-url"]')?.getAttribute("content") || null;
}

/**
 * POSTs `body` as JSON to an operation that answers server-sent events, handing each `delta`
 * event's text to `onText` as it arrives. Resolves with the `done` event's data (the whole
 * answer); rejects with an ApiError for a refusal before the stream or an `error` event in
 * it, and with the AbortError when `signal` stops it. Sent to the page's stream base when it
 * names one, with the user's token when signed in.
 * @param {string} path
 * @param {unknown} body
 * @param {{signal?: AbortSignal, onText: (text: string) => void}} init
 * @returns {Promise<any>}
 */
export async function streamAnswer(path, body, { signal, onText }) {
  const base = path.startsWith(STREAM_PATH) ? streamBase() : null;
  const url = base ? new URL(path.slice(STREAM_PATH.length), base) : new URL(path, window.location.origin);
  /** @type {Record<string, string>} */
  const headers = { accept: "text/event-stream", "content-type": "application/json" };
  const token = tokenSource();
  if (token) {
    headers.authorization = `Bearer ${token}`;
  }
  let response;
  try {
    response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") {
      throw error;
    }
    throw new ApiError(0, "Could not reach the server. Check your connection and try again.");
  }
  if (!response.ok || !response.body) {
    throw refusal(response, parsed(await response.text()), token);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      throw new ApiError(502, "The answer stopped before it was finished.");
    }
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const name = block.match(/^event: (.*)$/m)?.[1];
      const data = parsed(block.match(/^data: (.*)$/m)?.[1] ?? "");
      if (name === "delta" && typeof data?.text === "string") {
        onText(data.text);
      } else if (name === "done") {
        await reader.cancel();
        return data;
      } else if (name === "error") {
        await reader.cancel();
        throw new ApiError(Number(data?.code) || 502, String(data?.message ?? "The answer failed."));
      }
    }
  }
}

/**
 * Sends `body` to a presigned storage URL (a presigned upload: not the API, so no token and
 * no JSON) with the headers it was signed for, except `Content-Length`: the browser sets that
 * from the body, whose size is what was signed. A failure to reach the storage is an ApiError
 * with status 0; a refusal (an expired URL, another type or size than signed) one with 502.
 * @param {{uploadUrl: string, method: string, headers: Object<string, string>}} upload
 * @param {Blob} body
 * @param {{signal?: AbortSignal}} [init]
 * @returns {Promise<void>}
 */
export async function sendToStorage(upload, body, init = {}) {
  /** @type {Record<string, string>} */
  const headers = {};
  for (const [name, value] of Object.entries(upload.headers)) {
    if (name.toLowerCase() !== "content-length") {
      headers[name] = value;
    }
  }
  let response;
  try {
    response = await fetch(upload.uploadUrl, { method: upload.method, headers, body, signal: init.signal, credentials: "omit", cache: "no-store" });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") {
      throw error;
    }
    throw new ApiError(0, "Could not reach the image storage. Check your connection and try again.");
  }
  if (!response.ok) {
    throw new ApiError(502, `The image storage refused the file (${`${response.status} ${response.statusText}`.trim()})`);
  }
}

/**
 * The `field: reason` entries inside a message of the Reason error body, which has no
 * `details`: "Validation failed: title: must be 5 to 100 characters; topics: ...". Empty
 * unless every part names a field, so a message is never cut up wrongly.
 * @param {string} message
 * @returns {string[]}
 */
export function reasonDetails(message) {
  const prefix = "Validation failed: ";
  if (!message.startsWith(prefix)) {
    return [];
  }
  const parts = message.slice(prefix.length).split("; ");
  return parts.every((part) => /^[A-Za-z][\w.[\]]*: \S/.test(part)) ? parts : [];
}

/**
 * Every page of a list that names its next page in `X-Next-Cursor`, up to `maxPages` pages
 * (a catalog of a million sources is not one screen; the first thousand are).
 * @template T
 * @param {(cursor: string|undefined, options: RequestOptions) => Promise<T[]>} page Fetches one page.
 * @param {{ signal?: AbortSignal, maxPages?: number }} [options]
 * @returns {Promise<T[]>}
 */
export async function allPages(page, { signal, maxPages = 10 } = {}) {
  /** @type {T[]} */
  const items = [];
  /** @type {string|undefined} */
  let cursor;
  for (let n = 0; n < maxPages; n++) {
    /** @type {string|null} */
    let next = null;
    items.push(
      ...(await page(cursor, {
        signal,
        onHeaders: (headers) => {
          next = headers.get("x-next-cursor");
        },
      })),
    );
    if (!next) {
      break;
    }
    cursor = next;
  }
  return items;
}

/**
 * The `after` of a list answer's `Link: <...?limit=20&after=N>; rel="next"` (the recipe
 * list's "more" marker); undefined on the last page or for anything else.
 * @param {string|null} link
 */
export function nextAfter(link) {
  const target = link?.match(/<([^>]*)>\s*;\s*rel="?next"?/)?.[1];
  if (!target) {
    return undefined;
  }
  const after = Number(new URL(target, "http://localhost").searchParams.get("after"));
  return Number.isSafeInteger(after) && after > 0 ? after : undefined;
}
