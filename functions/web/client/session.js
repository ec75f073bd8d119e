// Who is logged in: the token (kept in localStorage so a reload keeps the session, renewed
// while the reader is active) and the roles it carries, the profile, settings and
// subscriptions (what is read and starred is the reader's, asked for by its pages); a
// session the server ended (a password or role change, signing out everywhere) is forgotten
// here with the server's reason, for the sign-in page to show.

import * as usersApi from "./api-users.gen.js";
import { configureAuth } from "./http.js";
import { claimsOf, opensIncidents, tokenRoles } from "./roles.js";

/** @typedef {import("./api-types.gen.js").Profile} Profile */
/** @typedef {import("./api-types.gen.js").ProfileUpdate} ProfileUpdate */
/** @typedef {import("./api-types.gen.js").Registration} Registration */
/** @typedef {import("./api-types.gen.js").Settings} Settings */
/** @typedef {import("./api-types.gen.js").SettingsUpdate} SettingsUpdate */

const TOKEN_KEY = "newsReader.token";
/** How far this device's clock runs ahead of the server's, in seconds (see `keep`). */
const SKEW_KEY = "newsReader.clockSkew";
/** Where earlier versions kept saved articles on the device; starred on the account. */
const SAVED_PREFIX = "newsReader.saved.";
/** A token with less than this left (seconds) is renewed when the reader is active. */
const RENEW_WITHIN = 600;
/** Activity checks the token at most this often (ms). */
const ACTIVITY_CHECK_EVERY = 15_000;

/**
 * @typedef {Object} State
 * @property {string|null} token
 * @property {Profile|null} user
 * @property {Settings|null} settings
 * @property {string[]} subscriptions Ids of the sources the user subscribes to.
 */

/** @type {State} */
export const session = { token: null, user: null, settings: null, subscriptions: [] };

/** @type {Set<() => void>} */
const listeners = new Set();

/** @param {() => void} listener */
export function onSessionChange(listener) {
  listeners.add(listener);
}

function changed() {
  applyTheme();
  for (const listener of listeners) {
    listener();
  }
}

/**
 * The token's `iat` and `exp` (seconds since the epoch), 0 when they cannot be read.
 * @param {string} token
 */
function lifetime(token) {
  const claims = claimsOf(token);
  return {
    issued: typeof claims.iat === "number" ? claims.iat : 0,
    expires: typeof claims.exp === "number" ? claims.exp : 0,
  };
}

/**
 * The roles the session's token carries (what the server grants on each request; read only
 * to choose what the page shows): none when nobody is logged in.
 * @returns {string[]}
 */
export function roles() {
  return session.token && session.user ? tokenRoles(session.token) : [];
}

/** Whether the incident platform is open to this session: OPERATOR or ADMIN. */
export function isOperator() {
  return opensIncidents(roles());
}

/** Whether this session is an administrator's. */
export function isAdmin() {
  return roles().includes("ADMIN");
}

/** Why the server ended the last session, until the sign-in page has shown it. */
let endedNotice = /** @type {string|null} */ (null);

/** Why the server ended the session, if it did and nobody has been told yet. */
export function endedReason() {
  return endedNotice;
}

/** The reason the server ended the session, once: the sign-in page shows it. */
export function takeEndedReason() {
  const reason = endedNotice;
  endedNotice = null;
  return reason;
}

/**
 * The server ended the session (its token answered 401): forget it here and keep `reason` for
 * the sign-in page.
 * @param {string} reason
 */
function sessionEnded(reason) {
  endedNotice = reason;
  clear();
  changed();
}

/** @param {string} token */
function expiry(token) {
  return lifetime(token).expires;
}

/** This device's clock minus the server's (seconds), as of the last token received. */
let skew = Number(localStorage.getItem(SKEW_KEY)) || 0;

/** The server's time now (seconds since the epoch), as this device best knows it. */
function serverNow() {
  return Date.now() / 1000 - skew;
}

/**
 * Makes `token`, just issued, the session's. Its `iat` is the server's time now: measuring
 * the device's clock against it keeps a clock that runs fast or slow from renewing on every
 * request or logging out early.
 * @param {string} token
 */
function keep(token) {
  session.token = token;
  localStorage.setItem(TOKEN_KEY, token);
  const { issued } = lifetime(token);
  if (issued > 0) {
    skew = Date.now() / 1000 - issued;
    localStorage.setItem(SKEW_KEY, String(skew));
  }
}

function currentToken() {
  if (session.token && expiry(session.token) <= serverNow()) {
    clear();
    changed();
  }
  maybeRenew();
  return session.token;
}

/** Whether a renewal is under way. */
let renewing = false;
let lastActivityCheck = 0;

/**
 * Renews the token when little of it is left (under ten minutes, or under half its lifetime
 * for short-lived tokens), once at a time; the reader is active because this runs on API
 * calls and on input.
 */
function maybeRenew() {
  const token = session.token;
  if (!token || renewing) {
    return;
  }
  const { issued, expires } = lifetime(token);
  const left = expires - serverNow();
  if (left <= 0 || left > Math.min(RENEW_WITHIN, (expires - issued) / 2)) {
    return;
  }
  // Set before the call: the renewal's own request asks `currentToken` for its header, which
  // comes back here, and would start another renewal, and so on as deep as the stack goes.
  renewing = true;
  usersApi
    .refreshToken()
    .then(({ token: fresh }) => {
      // Logged out or in as someone else meanwhile: keep what is there now.
      if (session.token === token) {
        keep(fresh);
      }
    })
    .catch(() => {
      // A refused renewal (the account is gone) already logged the user out through the
      // 401 handler; anything else is retried on the next activity.
    })
    .finally(() => {
      renewing = false;
    });
}

function onActivity() {
  const now = Date.now();
  if (now - lastActivityCheck >= ACTIVITY_CHECK_EVERY) {
    lastActivityCheck = now;
    currentToken();
  }
}

function clear() {
  session.token = null;
  session.user = null;
  session.settings = null;
  session.subscriptions = [];
  localStorage.removeItem(TOKEN_KEY);
}

/** Restores a session from an earlier visit, if its token is still valid. */
export async function restore() {
  configureAuth(currentToken, (token, message) => {
    // An answer to an earlier session's request (logged out or in as someone else since).
    if (session.token === token) {
      sessionEnded(message);
    }
  });
  for (const event of ["pointerdown", "keydown", "scroll", "focus"]) {
    window.addEventListener(event, onActivity, { passive: true, capture: true });
  }
  const stored = localStorage.getItem(TOKEN_KEY);
  if (stored && expiry(stored) > serverNow()) {
    session.token = stored;
    try {
      await loadAccount();
    } catch {
      clear();
    }
  } else if (stored) {
    localStorage.removeItem(TOKEN_KEY);
  }
  restored = true;
  changed();
}

async function loadAccount() {
  const [user, settings, subscriptions] = await Promise.all([usersApi.getMyProfile(), usersApi.getMySettings(), usersApi.getMySubscriptions()]);
  session.user = user;
  session.settings = settings;
  session.subscriptions = subscriptions.sourceIds;
  await adoptDeviceSaved(user.id);
}

/**
 * Whether someone may be signed in: a session, or a token from an earlier visit not yet
 * restored (the home page's module is chosen before the session is).
 */
export function maybeSignedIn() {
  return Boolean(session.user || (!restored && localStorage.getItem(TOKEN_KEY)));
}

/** Whether `restore` has run. */
let restored = false;

/**
 * Saved articles an earlier version kept on this device are starred on the account, once.
 * @param {string} userId
 */
async function adoptDeviceSaved(userId) {
  /** @type {string[]} */
  let ids = [];
  try {
    const stored = JSON.parse(localStorage.getItem(SAVED_PREFIX + userId) ?? "[]");
    ids = Array.isArray(stored) ? stored.filter((id) => typeof id === "string") : [];
  } catch {
    ids = [];
  }
  if (!ids.length) {
    localStorage.removeItem(SAVED_PREFIX + userId);
    return;
  }
  try {
    const { markArticles } = await import("./api-reader.gen.js");
    await markArticles({ ids: ids.slice(0, 1000), starred: true });
    localStorage.removeItem(SAVED_PREFIX + userId);
  } catch {
    // Offline, or the articles are gone: the device's list stays for the next login.
  }
}

/**
 * @param {string} username
 * @param {string} password
 */
export async function logIn(username, password) {
  const { token } = await usersApi.loginUser({ username, password });
  endedNotice = null;
  keep(token);
  try {
    await loadAccount();
  } catch (error) {
    clear();
    throw error;
  }
  changed();
}

/**
 * Registers, then logs in with the same credentials.
 * @param {Registration} registration
 */
export async function register(registration) {
  await usersApi.registerUser(registration);
  await logIn(registration.username, registration.password);
}

export function logOut() {
  endedNotice = null;
  clear();
  changed();
}

/**
 * Changes the password (the current one is needed); the server ends every other session and
 * answers a token for this one, which replaces the old.
 * @param {string} currentPassword
 * @param {string} password
 */
export async function changePassword(currentPassword, password) {
  const userId = session.user?.id;
  const { token } = await usersApi.changeMyPassword({ currentPassword, password });
  // Every earlier token of the account ended (a renewal meanwhile too): this one is the session.
  if (session.token && session.user?.id === userId) {
    keep(token);
  }
}

/** Ends every session of the account on the server, this one included, then forgets it here. */
export async function signOutEverywhere() {
  await usersApi.endMySessions();
  endedNotice = null;
  clear();
  changed();
}

/** Deletes the account on the server, then forgets it here. */
export async function deleteAccount() {
  const id = session.user?.id;
  await usersApi.deleteMyAccount();
  if (id) {
    localStorage.removeItem(SAVED_PREFIX + id);
  }
  clear();
  changed();
}

/** @param {SettingsUpdate} update */
export async function saveSettings(update) {
  session.settings = await usersApi.updateMySettings(update);
  changed();
  return session.settings;
}

/** @param {ProfileUpdate} update */
export async function saveProfile(update) {
  session.user = await usersApi.updateMyProfile(update);
  changed();
  return session.user;
}

/** @param {string} sourceId */
export function isSubscribed(sourceId) {
  return session.subscriptions.includes(sourceId);
}

/**
 * Subscribes (or unsubscribes) the user; returns the source, or null when unsubscribing
 * removed the source (the user was its last subscriber).
 * @param {string} sourceId
 * @param {boolean} subscribe
 */
export async function setSubscribed(sourceId, subscribe) {
  const source = subscribe
    ? await usersApi.subscribeToSource(sourceId)
    : await usersApi.unsubscribeFromSource(sourceId);
  // The users service keeps enabledSourceIds in step; read them back.
  const [settings, subscriptions] = await Promise.all([usersApi.getMySettings(), usersApi.getMySubscriptions()]);
  session.settings = settings;
  session.subscriptions = subscriptions.sourceIds;
  changed();
  return source;
}

/** @param {string} topicId */
export function isFollowed(topicId) {
  return Boolean(session.settings?.followedTopics.includes(topicId));
}

/**
 * @param {string} topicId
 * @param {boolean} follow
 */
export async function setFollowed(topicId, follow) {
  const current = session.settings?.followedTopics ?? [];
  const followedTopics = follow ? [...new Set([...current, topicId])] : current.filter((t) => t !== topicId);
  return saveSettings({ followedTopics });
}

function applyTheme() {
  const theme = session.settings?.theme ?? "system";
  document.documentElement.dataset.theme = theme;
}
