// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract
//
// Operations without a function here (not for browser users):
//   webClient (platform surface, not an API call)
//   gatewayHealth (platform surface, not an API call)
//   removeSourceSubscriber (service or internal credentials only)
//   addSourceSubscriber (service or internal credentials only)
//   issueServiceToken (not a JSON request body)
//   swaggerUi (platform surface, not an API call)
//   apiDocs (platform surface, not an API call)

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */

/**
 * A full article; lists leave `paragraphs` out.
 * @typedef {Object} Article
 * @property {(string|null)} [author]
 * @property {string} id
 * @property {(string|null)} [imageUrl]
 * @property {(string|null)} [link] The article on the publisher's site.
 * @property {Array<string>} [paragraphs] The body as plain-text paragraphs; only on a single article.
 * @property {string} publishedAt
 * @property {string} sourceId
 * @property {string} sourceTitle
 * @property {(string|null)} [summary] The feed's short description of the article, as plain text.
 * @property {string} title
 * @property {Array<TopicRef>} topics
 */

/**
 * @typedef {("left"|"center"|"right"|"unclear")} Bias
 */

/**
 * The detailed error body (Documents A and C).
 * @typedef {Object} ErrorBody
 * @property {number} code The HTTP status.
 * @property {Array<string>} details `field: reason` entries; empty when none.
 * @property {string} message
 * @property {string} path The request path as the answering service sees it (without the gateway prefix).
 * @property {string} timestamp ISO 8601 UTC.
 */

/**
 * The `explain` response.
 * @typedef {Object} ExplainResponse
 * @property {string} explanation
 * @property {KnowledgeLevel} knowledgeLevel The level the explanation is written for.
 * @property {string} model
 * @property {ProviderKind} provider
 */

/**
 * The request body every GenAI operation takes. Exactly one of `articleId` or `text`;
 * the other fields are read by the operation they belong to and ignored by the others.
 * (The function's contract adds the "exactly one" and, for `qa`, the required `question`.)
 * @typedef {({articleId?: string, knowledgeLevel?: (KnowledgeLevel|null), length?: (SummaryLength|null), question?: (string|null), style?: (SummaryStyle|null), text?: string} & Object<string, unknown>)} GenAiRequest
 */

/**
 * A health check's body.
 * @typedef {Object} Health
 * @property {HealthStatus} status
 */

/**
 * `UP`, or `DOWN` when a dependency (the function's table) cannot be reached.
 * @typedef {("UP"|"DOWN")} HealthStatus
 */

/**
 * One Ed25519 public key (RFC 8037).
 * @typedef {Object} Jwk
 * @property {string} alg Always `EdDSA`.
 * @property {string} crv Always `Ed25519`.
 * @property {string} kid The key id tokens name in their `kid` header.
 * @property {string} kty Always `OKP`.
 * @property {string} use Always `sig`.
 * @property {string} x The public key, base64url without padding.
 */

/**
 * An RFC 7517 JSON Web Key Set: the public keys tokens are verified with.
 * @typedef {Object} Jwks
 * @property {Array<Jwk>} keys
 */

/**
 * @typedef {("child"|"beginner"|"intermediate"|"expert")} KnowledgeLevel
 */

/**
 * A login: the username and password given at registration.
 * @typedef {Object} Login
 * @property {string} password At most 128 characters, as at registration.
 * @property {string} username Not blank; at most 50 characters, as at registration.
 */

/**
 * A user token: a JWT to send as `Authorization: Bearer <token>`.
 * @typedef {Object} LoginToken
 * @property {string} token
 */

/**
 * The page envelope of Document A.
 * @typedef {Object} Page_Article
 * @property {Array<{author?: (string|null), id: string, imageUrl?: (string|null), link?: (string|null), paragraphs?: Array<string>, publishedAt: string, sourceId: string, sourceTitle: string, summary?: (string|null), title: string, topics: Array<TopicRef>}>} content
 * @property {number} page This page's number, from 0.
 * @property {number} size The page size asked for.
 * @property {number} totalElements
 * @property {number} totalPages
 */

/**
 * A user's profile as the API shows it.
 * @typedef {Object} Profile
 * @property {string} createdAt
 * @property {string} email
 * @property {string} id The user id (the tokens' `sub`).
 * @property {(string|null)} [name]
 * @property {Array<Role>} roles `USER`, plus `ADMIN` for the configured administrators.
 * @property {string} username
 */

/**
 * Profile changes as sent: absent fields are unchanged; `name: null` clears the name.
 * @typedef {Object} ProfileUpdate
 * @property {(string|null)} [email]
 * @property {(string|null)} [name] Display name (at most 100 characters); `null` or blank clears it.
 */

/**
 * Which provider answers: the values of `LLM_PROVIDER` and of the responses' `provider`.
 * @typedef {("cloud"|"local")} ProviderKind
 */

/**
 * The body of `qa`: a GenAI request whose question is required.
 * @typedef {({articleId?: string, knowledgeLevel?: (KnowledgeLevel|null), length?: (SummaryLength|null), question: string, style?: (SummaryStyle|null), text?: string} & Object<string, unknown>)} QaRequest
 */

/**
 * The `qa` response.
 * @typedef {Object} QaResponse
 * @property {string} answer Taken only from the article; says so when the article does not answer the question.
 * @property {string} model
 * @property {ProviderKind} provider
 */

/**
 * A new account. Every field is checked and each problem named in the 400's `details`.
 * @typedef {Object} Registration
 * @property {string} email A valid address, unique (case-insensitively).
 * @property {(string|null)} [name] Display name; blank means none.
 * @property {string} password
 * @property {string} username Unique (case-insensitively).
 */

/**
 * @typedef {("USER"|"ADMIN")} Role
 */

/**
 * One id of [`SavedArticles`] (the schema of the list's items).
 * @typedef {string} SavedArticleId
 */

/**
 * One entry of a saved-articles list: the content service's article id format.
 * @typedef {string} SavedArticleIdEntry
 */

/**
 * A user's saved articles, newest first.
 * @typedef {Object} SavedArticleIds
 * @property {Array<string>} ids Article ids, newest saved first; at most 100.
 */

/**
 * Article ids to add to the saved articles (a browser's own list, when its user logs in).
 * @typedef {Object} SavedArticleIdsMerge
 * @property {Array<SavedArticleIdEntry>} ids Article ids, newest first; those already saved are skipped, the rest are kept after the saved ones.
 */

/**
 * The articles to get.
 * @typedef {Object} SavedArticles
 * @property {Array<SavedArticleId>} ids Article ids, at most 100, each not blank and at most 200 characters.
 */

/**
 * @typedef {("positive"|"neutral"|"negative")} Sentiment
 */

/**
 * The `sentiment` response.
 * @typedef {Object} SentimentResponse
 * @property {(Bias|null)} [bias]
 * @property {string} model
 * @property {ProviderKind} provider
 * @property {string} rationale Why the model rated it so.
 * @property {number} score From -1.0 (very negative) to 1.0 (very positive).
 * @property {Sentiment} sentiment
 */

/**
 * A service token (RFC 6749 5.1).
 * @typedef {Object} ServiceToken
 * @property {string} access_token
 * @property {number} expires_in Seconds until the token expires.
 * @property {string} scope The granted scopes, space-separated.
 * @property {string} token_type Always `Bearer`.
 */

/**
 * Reader preferences (Document A settings, plus Document B's visibility flags).
 * @typedef {Object} Settings
 * @property {Array<string>} enabledSourceIds The sources the user is subscribed to (kept in step by subscribe and unsubscribe).
 * @property {Array<string>} followedTopics Topic ids the user follows.
 * @property {string} language A language tag such as `en` or `pt-BR`.
 * @property {boolean} showBookmarks Whether the user's bookmarks show on their community profile (Document B).
 * @property {boolean} showLikes Whether the user's likes show on their community profile (Document B).
 * @property {SummaryLength} summaryLength The default length of AI summaries.
 * @property {Theme} theme
 */

/**
 * A settings update: absent fields keep their current value.
 * @typedef {Object} SettingsUpdate
 * @property {(Array<SourceIdEntry>|null)} [enabledSourceIds] At most 500 ids, each not blank and at most 100 characters.
 * @property {(Array<TopicIdEntry>|null)} [followedTopics] At most 100 topic ids, each not blank and at most 50 characters.
 * @property {(string|null)} [language] A language tag such as `en` or `pt-BR`.
 * @property {(boolean|null)} [showBookmarks]
 * @property {(boolean|null)} [showLikes]
 * @property {(SummaryLength|null)} [summaryLength]
 * @property {(Theme|null)} [theme]
 */

/**
 * A shared RSS/Atom/JSON feed source (one per normalised URL).
 * @typedef {Object} Source
 * @property {string} createdAt
 * @property {(string|null)} [description]
 * @property {string} id
 * @property {(string|null)} [lastFetchedAt] When the feed was last fetched.
 * @property {(string|null)} [siteUrl] The website the feed belongs to.
 * @property {number} subscriberCount How many users are subscribed; the last one leaving deletes the source.
 * @property {string} title
 * @property {string} url The feed's URL.
 */

/**
 * One entry of `enabledSourceIds` (the schema of the list's items).
 * @typedef {string} SourceIdEntry
 */

/**
 * A feed to add.
 * @typedef {Object} SourceSubmission
 * @property {string} url An http(s) URL serving an RSS, Atom or JSON Feed document (at most 2048 characters).
 */

/**
 * The sources a user subscribes to (enabled or not: `enabledSourceIds` in the settings says
 * which of them the personal feed shows).
 * @typedef {Object} Subscriptions
 * @property {Array<string>} sourceIds Source ids, in id order.
 */

/**
 * The `summarize` response.
 * @typedef {Object} SummarizeResponse
 * @property {string} model The model that answered.
 * @property {ProviderKind} provider
 * @property {string} summary
 */

/**
 * @typedef {("short"|"medium"|"long")} SummaryLength
 */

/**
 * @typedef {("plain"|"bullets")} SummaryStyle
 */

/**
 * @typedef {("light"|"dark"|"system")} Theme
 */

/**
 * A client-credentials token request (RFC 6749 4.4), form-encoded.
 * @typedef {Object} TokenRequest
 * @property {(string|null)} [client_id] With `client_secret`, instead of HTTP Basic.
 * @property {(string|null)} [client_secret]
 * @property {string} grant_type Always `client_credentials`.
 * @property {(string|null)} [scope] Space-separated scopes; all the client's scopes when absent.
 */

/**
 * One entry of `followedTopics` (the schema of the list's items).
 * @typedef {string} TopicIdEntry
 */

/**
 * A topic an article belongs to.
 * @typedef {Object} TopicRef
 * @property {string} id The topic's slug, e.g. `open-source`.
 * @property {string} name As the feed spelt it, e.g. `Open Source`.
 */

/**
 * A topic with how many articles it has.
 * @typedef {Object} TopicSummary
 * @property {number} articleCount
 * @property {string} id
 * @property {string} name
 */

/**
 * What an unsubscribe left: when the source survives, every Source field too; when the last subscriber left, only these three, with deleted true.
 * @typedef {Object} Unsubscribed
 * @property {boolean} deleted The last subscriber left: the source and its articles are gone from every read (their rows are removed in the background).
 * @property {string} id
 * @property {number} subscriberCount
 */

/**
 * Explains the article for a `knowledgeLevel` (child, beginner, intermediate, expert).
 *
 * `POST /api/ai/explain`
 * @param {GenAiRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<ExplainResponse>}
 */
export function aiExplain(body, options = {}) {
  return request("POST", `/api/ai/explain`, { ...options, body });
}

/**
 * The GenAI service is up (it does not call the model).
 *
 * `GET /api/ai/health`
 * @param {RequestOptions} [options]
 * @returns {Promise<Health>}
 */
export function aiHealth(options = {}) {
  return request("GET", `/api/ai/health`, { ...options });
}

/**
 * Answers a `question` from the article's text only; says so when the article does not
 * contain the answer.
 *
 * `POST /api/ai/qa`
 * @param {QaRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<QaResponse>}
 */
export function aiQa(body, options = {}) {
  return request("POST", `/api/ai/qa`, { ...options, body });
}

/**
 * Rates the article's tone (sentiment and score) and political bias.
 *
 * `POST /api/ai/sentiment`
 * @param {GenAiRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<SentimentResponse>}
 */
export function aiSentiment(body, options = {}) {
  return request("POST", `/api/ai/sentiment`, { ...options, body });
}

/**
 * Summarizes the article at the asked `length` (short, medium, long) and `style` (plain,
 * bullets).
 *
 * `POST /api/ai/summarize`
 * @param {GenAiRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<SummarizeResponse>}
 */
export function aiSummarize(body, options = {}) {
  return request("POST", `/api/ai/summarize`, { ...options, body });
}

/**
 * The content service and its table.
 *
 * `GET /api/content/actuator/health`
 * @param {RequestOptions} [options]
 * @returns {Promise<Health>}
 */
export function contentHealth(options = {}) {
  return request("GET", `/api/content/actuator/health`, { ...options });
}

/**
 * Articles, newest first, a page at a time; by source or by topic, or a personal feed of
 * several sources.
 *
 * `GET /api/content/articles`
 * @param {{sourceId?: Array<string>, topicId?: string, page?: number, size?: number}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Page_Article>}
 */
export function listArticles(query = {}, options = {}) {
  return request("GET", `/api/content/articles`, { ...options, query });
}

/**
 * Gets a batch of articles by id (a user's saved articles).
 *
 * `POST /api/content/articles/saved`
 * @param {SavedArticles} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<Article>>}
 */
export function getSavedArticles(body, options = {}) {
  return request("POST", `/api/content/articles/saved`, { ...options, body, auth: "required" });
}

/**
 * One article with its body paragraphs.
 *
 * `GET /api/content/articles/{id}`
 * @param {string} id The article's id
 * @param {RequestOptions} [options]
 * @returns {Promise<Article>}
 */
export function getArticle(id, options = {}) {
  return request("GET", `/api/content/articles/${encodeURIComponent(id)}`, { ...options });
}

/**
 * Every source.
 *
 * `GET /api/content/sources`
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<Source>>}
 */
export function listSources(options = {}) {
  return request("GET", `/api/content/sources`, { ...options });
}

/**
 * Submits a feed URL. Fetches and parses the feed before answering, so the new source's
 * articles show at once.
 *
 * `POST /api/content/sources`
 * @param {SourceSubmission} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Source>}
 */
export function submitSource(body, options = {}) {
  return request("POST", `/api/content/sources`, { ...options, body, auth: "required" });
}

/**
 * One source, with its subscriber count.
 *
 * `GET /api/content/sources/{id}`
 * @param {string} id The source's id
 * @param {RequestOptions} [options]
 * @returns {Promise<Source>}
 */
export function getSource(id, options = {}) {
  return request("GET", `/api/content/sources/${encodeURIComponent(id)}`, { ...options });
}

/**
 * Every topic with its number of articles.
 *
 * `GET /api/content/topics`
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<TopicSummary>>}
 */
export function listTopics(options = {}) {
  return request("GET", `/api/content/topics`, { ...options });
}

/**
 * The public keys tokens are verified with.
 *
 * `GET /api/users/.well-known/jwks.json`
 * @param {RequestOptions} [options]
 * @returns {Promise<Jwks>}
 */
export function getJwks(options = {}) {
  return request("GET", `/api/users/.well-known/jwks.json`, { ...options });
}

/**
 * The users service and its table.
 *
 * `GET /api/users/actuator/health`
 * @param {RequestOptions} [options]
 * @returns {Promise<Health>}
 */
export function usersHealth(options = {}) {
  return request("GET", `/api/users/actuator/health`, { ...options });
}

/**
 * Logs in.
 *
 * `POST /api/users/auth/login`
 * @param {Login} body
 * @param {RequestOptions} [options]
 * @returns {Promise<LoginToken>}
 */
export function loginUser(body, options = {}) {
  return request("POST", `/api/users/auth/login`, { ...options, body });
}

/**
 * Renews a session: a fresh user token for a valid, unexpired one, so a reader in the middle
 * of an article is not logged out. Refused when the token's account is gone.
 *
 * `POST /api/users/auth/refresh`
 * @param {RequestOptions} [options]
 * @returns {Promise<LoginToken>}
 */
export function refreshToken(options = {}) {
  return request("POST", `/api/users/auth/refresh`, { ...options, auth: "required" });
}

/**
 * Registers an account.
 *
 * `POST /api/users/auth/register`
 * @param {Registration} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Profile>}
 */
export function registerUser(body, options = {}) {
  return request("POST", `/api/users/auth/register`, { ...options, body });
}

/**
 * Deletes the account: first every subscription (the last-subscriber rule applies), then
 * the user's records. Safe to repeat after a failure part-way.
 *
 * `DELETE /api/users/users/me`
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function deleteMyAccount(options = {}) {
  return request("DELETE", `/api/users/users/me`, { ...options, auth: "required" });
}

/**
 * The logged-in user's profile.
 *
 * `GET /api/users/users/me`
 * @param {RequestOptions} [options]
 * @returns {Promise<Profile>}
 */
export function getMyProfile(options = {}) {
  return request("GET", `/api/users/users/me`, { ...options, auth: "required" });
}

/**
 * Changes the profile's email or name.
 *
 * `PUT /api/users/users/me`
 * @param {ProfileUpdate} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Profile>}
 */
export function updateMyProfile(body, options = {}) {
  return request("PUT", `/api/users/users/me`, { ...options, body, auth: "required" });
}

/**
 * The user's saved articles (ids; `POST /api/content/articles/saved` gets the articles).
 *
 * `GET /api/users/users/me/saved`
 * @param {RequestOptions} [options]
 * @returns {Promise<SavedArticleIds>}
 */
export function getMySavedArticles(options = {}) {
  return request("GET", `/api/users/users/me/saved`, { ...options, auth: "required" });
}

/**
 * Adds articles to the saved ones (those already saved are skipped, the others kept after
 * them): how a browser's own list joins the account at login.
 *
 * `POST /api/users/users/me/saved`
 * @param {SavedArticleIdsMerge} body
 * @param {RequestOptions} [options]
 * @returns {Promise<SavedArticleIds>}
 */
export function mergeMySavedArticles(body, options = {}) {
  return request("POST", `/api/users/users/me/saved`, { ...options, body, auth: "required" });
}

/**
 * Forgets a saved article (idempotent).
 *
 * `DELETE /api/users/users/me/saved/{articleId}`
 * @param {string} articleId The article's id
 * @param {RequestOptions} [options]
 * @returns {Promise<SavedArticleIds>}
 */
export function unsaveArticle(articleId, options = {}) {
  return request("DELETE", `/api/users/users/me/saved/${encodeURIComponent(articleId)}`, { ...options, auth: "required" });
}

/**
 * Saves an article for the user, on every device (idempotent).
 *
 * `PUT /api/users/users/me/saved/{articleId}`
 * @param {string} articleId The article's id
 * @param {RequestOptions} [options]
 * @returns {Promise<SavedArticleIds>}
 */
export function saveArticle(articleId, options = {}) {
  return request("PUT", `/api/users/users/me/saved/${encodeURIComponent(articleId)}`, { ...options, auth: "required" });
}

/**
 * The logged-in user's settings.
 *
 * `GET /api/users/users/me/settings`
 * @param {RequestOptions} [options]
 * @returns {Promise<Settings>}
 */
export function getMySettings(options = {}) {
  return request("GET", `/api/users/users/me/settings`, { ...options, auth: "required" });
}

/**
 * Changes settings: a merge, absent fields keep their value.
 *
 * `PUT /api/users/users/me/settings`
 * @param {SettingsUpdate} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Settings>}
 */
export function updateMySettings(body, options = {}) {
  return request("PUT", `/api/users/users/me/settings`, { ...options, body, auth: "required" });
}

/**
 * The sources the user subscribes to, enabled or not.
 *
 * `GET /api/users/users/me/subscriptions`
 * @param {RequestOptions} [options]
 * @returns {Promise<Subscriptions>}
 */
export function getMySubscriptions(options = {}) {
  return request("GET", `/api/users/users/me/subscriptions`, { ...options, auth: "required" });
}

/**
 * Unsubscribes the user from a source; the last subscriber leaving deletes the source and
 * its articles.
 *
 * `DELETE /api/users/users/me/subscriptions/{sourceId}`
 * @param {string} sourceId The source's id
 * @param {RequestOptions} [options]
 * @returns {Promise<Source|null>}
 */
export function unsubscribeFromSource(sourceId, options = {}) {
  return request("DELETE", `/api/users/users/me/subscriptions/${encodeURIComponent(sourceId)}`, { ...options, auth: "required" });
}

/**
 * Subscribes the user to a source (through the content service, with a `source.write`
 * service token) and enables it in the user's settings.
 *
 * `POST /api/users/users/me/subscriptions/{sourceId}`
 * @param {string} sourceId The source's id
 * @param {RequestOptions} [options]
 * @returns {Promise<Source>}
 */
export function subscribeToSource(sourceId, options = {}) {
  return request("POST", `/api/users/users/me/subscriptions/${encodeURIComponent(sourceId)}`, { ...options, auth: "required" });
}
