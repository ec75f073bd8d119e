// Who is logged in: the token (kept in localStorage so a reload keeps the session), the
// profile and settings, and the articles the user saved on this device.

import * as api from "./api.gen.js";
import { configureAuth } from "./http.js";

const TOKEN_KEY = "newsReader.token";
const SAVED_PREFIX = "newsReader.saved.";
/** The saved-articles endpoint takes at most this many ids. */
export const MAX_SAVED = 100;

/**
 * @typedef {Object} State
 * @property {string|null} token
 * @property {api.Profile|null} user
 * @property {api.Settings|null} settings
 */

/** @type {State} */
export const session = { token: null, user: null, settings: null };

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
 * The token's expiry (seconds since the epoch), or 0 when it cannot be read.
 * @param {string} token
 */
function expiry(token) {
  try {
    const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const claims = JSON.parse(atob(payload));
    return typeof claims.exp === "number" ? claims.exp : 0;
  } catch {
    return 0;
  }
}

function currentToken() {
  if (session.token && expiry(session.token) * 1000 <= Date.now()) {
    clear();
    changed();
  }
  return session.token;
}

function clear() {
  session.token = null;
  session.user = null;
  session.settings = null;
  localStorage.removeItem(TOKEN_KEY);
}

/** Restores a session from an earlier visit, if its token is still valid. */
export async function restore() {
  configureAuth(currentToken, () => {
    clear();
    changed();
  });
  const stored = localStorage.getItem(TOKEN_KEY);
  if (stored && expiry(stored) * 1000 > Date.now()) {
    session.token = stored;
    try {
      await loadAccount();
    } catch {
      clear();
    }
  } else if (stored) {
    localStorage.removeItem(TOKEN_KEY);
  }
  changed();
}

async function loadAccount() {
  const [user, settings] = await Promise.all([api.getMyProfile(), api.getMySettings()]);
  session.user = user;
  session.settings = settings;
}

/**
 * @param {string} username
 * @param {string} password
 */
export async function logIn(username, password) {
  const { token } = await api.loginUser({ username, password });
  session.token = token;
  localStorage.setItem(TOKEN_KEY, token);
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
 * @param {api.Registration} registration
 */
export async function register(registration) {
  await api.registerUser(registration);
  await logIn(registration.username, registration.password);
}

export function logOut() {
  clear();
  changed();
}

/** Deletes the account on the server, then forgets it here. */
export async function deleteAccount() {
  const id = session.user?.id;
  await api.deleteMyAccount();
  if (id) {
    localStorage.removeItem(SAVED_PREFIX + id);
  }
  clear();
  changed();
}

/** @param {api.SettingsUpdate} update */
export async function saveSettings(update) {
  session.settings = await api.updateMySettings(update);
  changed();
  return session.settings;
}

/** @param {api.ProfileUpdate} update */
export async function saveProfile(update) {
  session.user = await api.updateMyProfile(update);
  changed();
  return session.user;
}

/** @param {string} sourceId */
export function isSubscribed(sourceId) {
  return Boolean(session.settings?.enabledSourceIds.includes(sourceId));
}

/**
 * Subscribes (or unsubscribes) the user; returns the source, or null when unsubscribing
 * removed the source (the user was its last subscriber).
 * @param {string} sourceId
 * @param {boolean} subscribe
 */
export async function setSubscribed(sourceId, subscribe) {
  const source = subscribe
    ? await api.subscribeToSource(sourceId)
    : await api.unsubscribeFromSource(sourceId);
  // The users service keeps enabledSourceIds in step; read them back.
  session.settings = await api.getMySettings();
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

/** The ids of the user's saved articles, newest first. */
export function savedIds() {
  if (!session.user) {
    return [];
  }
  try {
    const ids = JSON.parse(localStorage.getItem(SAVED_PREFIX + session.user.id) ?? "[]");
    return Array.isArray(ids) ? ids.filter((id) => typeof id === "string") : [];
  } catch {
    return [];
  }
}

/** @param {string} articleId */
export function isSaved(articleId) {
  return savedIds().includes(articleId);
}

/**
 * Saves or unsaves an article; returns whether it is saved now.
 * @param {string} articleId
 * @param {boolean} save
 */
export function setSaved(articleId, save) {
  if (!session.user) {
    return false;
  }
  const rest = savedIds().filter((id) => id !== articleId);
  const ids = save ? [articleId, ...rest].slice(0, MAX_SAVED) : rest;
  localStorage.setItem(SAVED_PREFIX + session.user.id, JSON.stringify(ids));
  return save;
}

function applyTheme() {
  const theme = session.settings?.theme ?? "system";
  document.documentElement.dataset.theme = theme;
}
