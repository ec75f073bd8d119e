// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */
/** @typedef {import("./api-types.gen.js").BookmarkResult} BookmarkResult */
/** @typedef {import("./api-types.gen.js").CommentEditRequest} CommentEditRequest */
/** @typedef {import("./api-types.gen.js").CommentLikeRequest} CommentLikeRequest */
/** @typedef {import("./api-types.gen.js").CommentRequest} CommentRequest */
/** @typedef {import("./api-types.gen.js").CommunityComment} CommunityComment */
/** @typedef {import("./api-types.gen.js").CommunityNotificationPage} CommunityNotificationPage */
/** @typedef {import("./api-types.gen.js").CommunityReport} CommunityReport */
/** @typedef {import("./api-types.gen.js").CommunityTopic} CommunityTopic */
/** @typedef {import("./api-types.gen.js").CommunityTopicRef} CommunityTopicRef */
/** @typedef {import("./api-types.gen.js").ImageUpload} ImageUpload */
/** @typedef {import("./api-types.gen.js").LikeResult} LikeResult */
/** @typedef {import("./api-types.gen.js").MarkReadRequest} MarkReadRequest */
/** @typedef {import("./api-types.gen.js").Post} Post */
/** @typedef {import("./api-types.gen.js").PostCard} PostCard */
/** @typedef {import("./api-types.gen.js").PostPage} PostPage */
/** @typedef {import("./api-types.gen.js").PostPatchRequest} PostPatchRequest */
/** @typedef {import("./api-types.gen.js").PostPreview} PostPreview */
/** @typedef {import("./api-types.gen.js").PostRequest} PostRequest */
/** @typedef {import("./api-types.gen.js").PostStatusName} PostStatusName */
/** @typedef {import("./api-types.gen.js").PostSummary} PostSummary */
/** @typedef {import("./api-types.gen.js").PresignedUpload} PresignedUpload */
/** @typedef {import("./api-types.gen.js").PresignedUploadRequest} PresignedUploadRequest */
/** @typedef {import("./api-types.gen.js").PreviewRequest} PreviewRequest */
/** @typedef {import("./api-types.gen.js").ReactionRequest} ReactionRequest */
/** @typedef {import("./api-types.gen.js").ReactionResult} ReactionResult */
/** @typedef {import("./api-types.gen.js").ReportRequest} ReportRequest */
/** @typedef {import("./api-types.gen.js").TopicCategory} TopicCategory */
/** @typedef {import("./api-types.gen.js").TopicSuggestion} TopicSuggestion */
/** @typedef {import("./api-types.gen.js").UnreadCount} UnreadCount */
/** @typedef {import("./api-types.gen.js").UploadedImage} UploadedImage */

/**
 * Deletes the caller's own comment, or (an admin, with `reason`) removes anyone's and keeps
 * the removal in the moderation log: one with replies stays in the thread as `[deleted]` (no
 * author, no text), one without leaves it; the post's `commentCount` moves.
 *
 * `DELETE /api/v1/comments/{id}`
 * @param {string} id The comment's id
 * @param {{reason?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function deleteComment(id, query = {}, options = {}) {
  return request("DELETE", `/api/v1/comments/${encodeURIComponent(id)}`, { ...options, query, auth: "required" });
}

/**
 * Changes the text of the caller's own comment; the comment then shows `editedAt`.
 *
 * `PATCH /api/v1/comments/{id}`
 * @param {string} id The comment's id
 * @param {CommentEditRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<CommunityComment>}
 */
export function editComment(id, body, options = {}) {
  return request("PATCH", `/api/v1/comments/${encodeURIComponent(id)}`, { ...options, body, auth: "required" });
}

/**
 * Likes a comment or takes the like back.
 *
 * `PUT /api/v1/comments/{id}/reaction`
 * @param {string} id The comment's id
 * @param {CommentLikeRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<LikeResult>}
 */
export function likeComment(id, body, options = {}) {
  return request("PUT", `/api/v1/comments/${encodeURIComponent(id)}/reaction`, { ...options, body, auth: "required" });
}

/**
 * An author's newest published posts, as Atom 1.0.
 *
 * `GET /api/v1/feeds/authors/{username}.atom`
 * @param {string} username The author's username (case-insensitive)
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function authorAtomFeed(username, options = {}) {
  return request("GET", `/api/v1/feeds/authors/${encodeURIComponent(username)}.atom`, { ...options });
}

/**
 * An author's newest published posts, as RSS 2.0.
 *
 * `GET /api/v1/feeds/authors/{username}.rss`
 * @param {string} username The author's username (case-insensitive)
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function authorRssFeed(username, options = {}) {
  return request("GET", `/api/v1/feeds/authors/${encodeURIComponent(username)}.rss`, { ...options });
}

/**
 * The site's newest published posts, as Atom 1.0.
 *
 * `GET /api/v1/feeds/posts.atom`
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function postsAtomFeed(options = {}) {
  return request("GET", `/api/v1/feeds/posts.atom`, { ...options });
}

/**
 * The site's newest published posts, as RSS 2.0.
 *
 * `GET /api/v1/feeds/posts.rss`
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function postsRssFeed(options = {}) {
  return request("GET", `/api/v1/feeds/posts.rss`, { ...options });
}

/**
 * A topic's newest published posts, as Atom 1.0.
 *
 * `GET /api/v1/feeds/topics/{slug}.atom`
 * @param {string} slug The topic's slug (or name: it is slugged)
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function topicAtomFeed(slug, options = {}) {
  return request("GET", `/api/v1/feeds/topics/${encodeURIComponent(slug)}.atom`, { ...options });
}

/**
 * A topic's newest published posts, as RSS 2.0.
 *
 * `GET /api/v1/feeds/topics/{slug}.rss`
 * @param {string} slug The topic's slug (or name: it is slugged)
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function topicRssFeed(slug, options = {}) {
  return request("GET", `/api/v1/feeds/topics/${encodeURIComponent(slug)}.rss`, { ...options });
}

/**
 * Published posts, newest first: of one topic, or of all.
 *
 * `GET /api/v1/posts`
 * @param {{page?: number, size?: number, cursor?: string, topic?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<PostPage>}
 */
export function listPosts(query = {}, options = {}) {
  return request("GET", `/api/v1/posts`, { ...options, query, auth: "optional" });
}

/**
 * Creates a post by the caller.
 *
 * `POST /api/v1/posts`
 * @param {PostRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Post>}
 */
export function createPost(body, options = {}) {
  return request("POST", `/api/v1/posts`, { ...options, body, auth: "required" });
}

/**
 * Cards (no body) of these posts, in the order of `ids`; unknown and draft posts left out.
 *
 * `GET /api/v1/posts/cards`
 * @param {{ids: string}} query
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<PostCard>>}
 */
export function postCards(query, options = {}) {
  return request("GET", `/api/v1/posts/cards`, { ...options, query, auth: "optional" });
}

/**
 * Renders a post's Markdown as the post's page will show it; stores nothing.
 *
 * `POST /api/v1/posts/preview`
 * @param {PreviewRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<PostPreview>}
 */
export function previewPost(body, options = {}) {
  return request("POST", `/api/v1/posts/preview`, { ...options, body, auth: "required" });
}

/**
 * Published posts holding every word of `q`, best first: a word in the title counts more
 * than one in the body; ties go to the newer post. With a valid token, `isLikedByMe` and
 * `isBookmarkedByMe` are the caller's. Matches are ranked in segments of the 1,000 newest
 * (`totalElements` counts the current one); `nextCursor` continues the ranking, then the
 * next segment of older matches, so every page costs one bounded query.
 *
 * `GET /api/v1/posts/search`
 * @param {{q: string, page?: number, size?: number, cursor?: string}} query
 * @param {RequestOptions} [options]
 * @returns {Promise<PostPage>}
 */
export function searchPosts(query, options = {}) {
  return request("GET", `/api/v1/posts/search`, { ...options, query, auth: "optional" });
}

/**
 * Deletes the caller's own post, draft or published, or (an admin, with `reason`) removes
 * anyone's and keeps the removal in the moderation log: it answers 404 to everyone after, and
 * leaves every list, topic feed, count and (through the indexer) the search.
 *
 * `DELETE /api/v1/posts/{id}`
 * @param {string} id The post's id
 * @param {{reason?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function deletePost(id, query = {}, options = {}) {
  return request("DELETE", `/api/v1/posts/${encodeURIComponent(id)}`, { ...options, query, auth: "required" });
}

/**
 * One post. A draft is visible to its author only; a view by anyone else is counted.
 *
 * `GET /api/v1/posts/{id}`
 * @param {string} id The post's id
 * @param {RequestOptions} [options]
 * @returns {Promise<Post>}
 */
export function getPost(id, options = {}) {
  return request("GET", `/api/v1/posts/${encodeURIComponent(id)}`, { ...options, auth: "optional" });
}

/**
 * Changes the given fields of the caller's post (author only).
 *
 * `PATCH /api/v1/posts/{id}`
 * @param {string} id The post's id
 * @param {PostPatchRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Post>}
 */
export function patchPost(id, body, options = {}) {
  return request("PATCH", `/api/v1/posts/${encodeURIComponent(id)}`, { ...options, body, auth: "required" });
}

/**
 * Replaces every field of the caller's post; status defaults to PUBLISHED.
 *
 * `PUT /api/v1/posts/{id}`
 * @param {string} id The post's id
 * @param {PostRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Post>}
 */
export function replacePost(id, body, options = {}) {
  return request("PUT", `/api/v1/posts/${encodeURIComponent(id)}`, { ...options, body, auth: "required" });
}

/**
 * Removes the caller's bookmark from any post that exists, also one unpublished or removed
 * since; removing a missing one changes nothing.
 *
 * `DELETE /api/v1/posts/{id}/bookmark`
 * @param {string} id The post's id
 * @param {RequestOptions} [options]
 * @returns {Promise<BookmarkResult>}
 */
export function unbookmarkPost(id, options = {}) {
  return request("DELETE", `/api/v1/posts/${encodeURIComponent(id)}/bookmark`, { ...options, auth: "required" });
}

/**
 * Bookmarks a published post; bookmarking twice changes nothing.
 *
 * `PUT /api/v1/posts/{id}/bookmark`
 * @param {string} id The post's id
 * @param {RequestOptions} [options]
 * @returns {Promise<BookmarkResult>}
 */
export function bookmarkPost(id, options = {}) {
  return request("PUT", `/api/v1/posts/${encodeURIComponent(id)}/bookmark`, { ...options, auth: "required" });
}

/**
 * A post's comments as a tree: every thread, or with `limit`/`cursor` a page of threads.
 *
 * `GET /api/v1/posts/{id}/comments`
 * @param {string} id The post's id
 * @param {{limit?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<CommunityComment>>}
 */
export function listComments(id, query = {}, options = {}) {
  return request("GET", `/api/v1/posts/${encodeURIComponent(id)}/comments`, { ...options, query, auth: "optional" });
}

/**
 * Adds the caller's comment to a published post.
 *
 * `POST /api/v1/posts/{id}/comments`
 * @param {string} id The post's id
 * @param {CommentRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<CommunityComment>}
 */
export function addComment(id, body, options = {}) {
  return request("POST", `/api/v1/posts/${encodeURIComponent(id)}/comments`, { ...options, body, auth: "required" });
}

/**
 * Sets the caller's reaction to a published post (one per user); NONE takes it back from any
 * post that exists, also one unpublished or removed since.
 *
 * `PUT /api/v1/posts/{id}/reaction`
 * @param {string} id The post's id
 * @param {ReactionRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<ReactionResult>}
 */
export function reactToPost(id, body, options = {}) {
  return request("PUT", `/api/v1/posts/${encodeURIComponent(id)}/reaction`, { ...options, body, auth: "required" });
}

/**
 * The AI summary of a post: its state, and the summary once generated. A draft's is visible
 * to its author only.
 *
 * `GET /api/v1/posts/{id}/summary`
 * @param {string} id The post's id
 * @param {RequestOptions} [options]
 * @returns {Promise<PostSummary>}
 */
export function getPostSummary(id, options = {}) {
  return request("GET", `/api/v1/posts/${encodeURIComponent(id)}/summary`, { ...options, auth: "optional" });
}

/**
 * Counts a view of a post by the caller (signed in or not), at most once per reader and
 * hour, shortly after (the count is applied in batches). A draft, a missing post or the
 * author's own view is accepted and not counted.
 *
 * `POST /api/v1/posts/{id}/views`
 * @param {string} id The post's id
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function viewPost(id, options = {}) {
  return request("POST", `/api/v1/posts/${encodeURIComponent(id)}/views`, { ...options, auth: "optional" });
}

/**
 * Reports a post or a comment the caller can see (not their own); one report per member
 * and target: a repeat answers the first, 200, and changes nothing.
 *
 * `POST /api/v1/reports`
 * @param {ReportRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<CommunityReport>}
 */
export function reportContent(body, options = {}) {
  return request("POST", `/api/v1/reports`, { ...options, body, auth: "required" });
}

/**
 * The topic catalog: categories in order, each with its public topics and their statistics.
 *
 * `GET /api/v1/topics`
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<TopicCategory>>}
 */
export function topicCatalog(options = {}) {
  return request("GET", `/api/v1/topics`, { ...options, auth: "optional" });
}

/**
 * The names of these topics, in the order of `ids`; unknown and unpublished ones left out.
 *
 * `GET /api/v1/topics/names`
 * @param {{ids: string}} query
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<CommunityTopicRef>>}
 */
export function topicNames(query, options = {}) {
  return request("GET", `/api/v1/topics/names`, { ...options, query, auth: "optional" });
}

/**
 * Every public topic with its statistics, in catalog order.
 *
 * `GET /api/v1/topics/stats`
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<CommunityTopic>>}
 */
export function topicStats(options = {}) {
  return request("GET", `/api/v1/topics/stats`, { ...options, auth: "optional" });
}

/**
 * Public topics whose name (or a later word of it) starts with `q`, for the writing view:
 * names starting with it first, then the most published posts, followers, name. A short
 * list, not paged: a writer types more to narrow it.
 *
 * `GET /api/v1/topics/suggest`
 * @param {{q: string, limit?: number}} query
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<TopicSuggestion>>}
 */
export function suggestTopics(query, options = {}) {
  return request("GET", `/api/v1/topics/suggest`, { ...options, query, auth: "optional" });
}

/**
 * Stores one image and answers its public URL.
 *
 * The image is recognised by its first bytes (PNG, JPEG, GIF or WebP), never by the declared
 * type or file name, and may be at most 5 MiB. Deployed behind API Gateway, though, a binary
 * body reaches Lambda base64-encoded (4/3 of its size) inside an event that must fit Lambda's
 * 6 MB synchronous payload limit: a file over about 4.4 MiB never reaches this function, and
 * API Gateway answers with its own error body, not this API's 413. Larger images (up to
 * 20 MiB) go straight to storage: `presignImageUpload`, then `confirmImageUpload`.
 *
 * `POST /api/v1/uploads/images`
 * @param {FormData} form Sent as multipart/form-data: the fields of `ImageUpload`.
 * @param {RequestOptions} [options]
 * @returns {Promise<UploadedImage>}
 */
export function uploadImage(form, options = {}) {
  return request("POST", `/api/v1/uploads/images`, { ...options, form, auth: "required" });
}

/**
 * Signs an upload straight to storage.
 *
 * For images over the direct upload's bound (5 MiB, and in practice about 4.4 MiB through
 * API Gateway): send the file with `method` to `uploadUrl` with exactly `headers` (the
 * signature covers `Content-Type` and `Content-Length`, so storage refuses another type or
 * size) before `expiresAt`, then confirm it. Counted against the same per-user limit as the
 * direct upload. Nothing is published until the confirm has checked the file's first bytes.
 *
 * `POST /api/v1/uploads/images/presigned`
 * @param {PresignedUploadRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<PresignedUpload>}
 */
export function presignImageUpload(body, options = {}) {
  return request("POST", `/api/v1/uploads/images/presigned`, { ...options, body, auth: "required" });
}

/**
 * Publishes an upload sent to its presigned URL, once its first bytes say it is an image.
 *
 * Reads the first bytes of the file sent for `id` (by the caller: another user's id is not
 * found); a PNG, JPEG, GIF or WebP image is published under its sniffed type and answered as
 * the direct upload answers. Anything else is deleted and refused. The file waiting is
 * removed either way, so a second confirm of the same id is a 404.
 *
 * `POST /api/v1/uploads/images/{id}/confirm`
 * @param {string} id The upload's id, as the presigned upload answered it
 * @param {RequestOptions} [options]
 * @returns {Promise<UploadedImage>}
 */
export function confirmImageUpload(id, options = {}) {
  return request("POST", `/api/v1/uploads/images/${encodeURIComponent(id)}/confirm`, { ...options, auth: "required" });
}

/**
 * The caller's notifications, newest first: replies and comments to their posts and
 * comments, mentions, the moderation of their content, their reports' outcomes.
 *
 * `GET /api/v1/users/me/notifications`
 * @param {{limit?: number, cursor?: string, unread?: boolean}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<CommunityNotificationPage>}
 */
export function listNotifications(query = {}, options = {}) {
  return request("GET", `/api/v1/users/me/notifications`, { ...options, query, auth: "required" });
}

/**
 * Marks some of the caller's notifications read.
 *
 * `POST /api/v1/users/me/notifications/read`
 * @param {MarkReadRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<UnreadCount>}
 */
export function markNotificationsRead(body, options = {}) {
  return request("POST", `/api/v1/users/me/notifications/read`, { ...options, body, auth: "required" });
}

/**
 * Marks every notification of the caller read (one write, whatever the inbox holds).
 *
 * `POST /api/v1/users/me/notifications/read-all`
 * @param {RequestOptions} [options]
 * @returns {Promise<UnreadCount>}
 */
export function markAllNotificationsRead(options = {}) {
  return request("POST", `/api/v1/users/me/notifications/read-all`, { ...options, auth: "required" });
}

/**
 * Posts a user bookmarked, newest bookmark first; others see it only when the user shows
 * their bookmarks.
 *
 * `GET /api/v1/users/{id}/bookmarks`
 * @param {string} id The user's id
 * @param {{page?: number, size?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<PostPage>}
 */
export function userBookmarks(id, query = {}, options = {}) {
  return request("GET", `/api/v1/users/${encodeURIComponent(id)}/bookmarks`, { ...options, query, auth: "optional" });
}

/**
 * Posts a user liked, newest like first; others see it only when the user shows their likes.
 *
 * `GET /api/v1/users/{id}/likes`
 * @param {string} id The user's id
 * @param {{page?: number, size?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<PostPage>}
 */
export function userLikes(id, query = {}, options = {}) {
  return request("GET", `/api/v1/users/${encodeURIComponent(id)}/likes`, { ...options, query, auth: "optional" });
}

/**
 * Posts by a user, newest first: published for everyone, drafts for the owner only.
 *
 * `GET /api/v1/users/{id}/posts`
 * @param {string} id The user's id
 * @param {{page?: number, size?: number, cursor?: string, status?: PostStatusName}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<PostPage>}
 */
export function userPosts(id, query = {}, options = {}) {
  return request("GET", `/api/v1/users/${encodeURIComponent(id)}/posts`, { ...options, query, auth: "optional" });
}
