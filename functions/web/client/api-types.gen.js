// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract
//
// Operations without a function (not for browser users):
//   webClient (platform surface, not an API call)
//   gatewayHealth (platform surface, not an API call)
//   forgetReader (service or internal credentials only)
//   updateSourceSettings (service or internal credentials only)
//   removeSourceSubscriber (service or internal credentials only)
//   addSourceSubscriber (service or internal credentials only)
//   deliverWebSub (not a JSON or multipart request body)
//   greaderClientLogin (not a JSON or multipart request body)
//   greaderDisableTag (service or internal credentials only)
//   greaderEditTag (service or internal credentials only)
//   greaderMarkAllAsRead (service or internal credentials only)
//   greaderRenameTag (service or internal credentials only)
//   greaderReadingListContents (service or internal credentials only)
//   greaderStreamContents (service or internal credentials only)
//   greaderItemsContents (service or internal credentials only)
//   greaderItemsContentsPosted (service or internal credentials only)
//   greaderItemIds (service or internal credentials only)
//   greaderItemIdsPosted (service or internal credentials only)
//   greaderSubscriptionEdit (service or internal credentials only)
//   greaderSubscriptionList (service or internal credentials only)
//   greaderQuickAdd (service or internal credentials only)
//   greaderTagList (service or internal credentials only)
//   greaderToken (service or internal credentials only)
//   greaderUnreadCount (service or internal credentials only)
//   greaderUserInfo (service or internal credentials only)
//   cleanupDeletedRecipeAccount (service or internal credentials only)
//   internalReaderSession (service or internal credentials only)
//   internalUserByUsername (service or internal credentials only)
//   internalUserIds (service or internal credentials only)
//   internalUser (service or internal credentials only)
//   internalUnsubscribeUser (service or internal credentials only)
//   internalSubscribeUser (service or internal credentials only)
//   issueServiceToken (not a JSON or multipart request body)
//   receiveAlertmanagerWebhook (service or internal credentials only)
//   persistDigest (service or internal credentials only)
//   generateDigestForUser (service or internal credentials only)
//   followerDeltas (service or internal credentials only)
//   cleanupDeletedAccount (service or internal credentials only)
//   intelligenceDocs (platform surface, not an API call)
//   intelligenceApiDocs (platform surface, not an API call)
//   incidentsDashboard (platform surface, not an API call)
//   dashboardMetrics (platform surface, not an API call)
//   intelligenceHealth (platform surface, not an API call)
//   lokiPush (platform surface, not an API call)
//   otlpExportLogs (platform surface, not an API call)
//   prometheusMetrics (platform surface, not an API call)
//   swaggerUi (platform surface, not an API call)
//   apiDocs (platform surface, not an API call)

export {};

/**
 * An aboutMe entry: 1 to 1000 characters, not blank.
 * @typedef {string} AboutMeEntry
 */

/**
 * A page of accounts.
 * @typedef {Object} AccountPage
 * @property {(string|null)} [nextCursor] The `cursor` of the next page; absent on the last one.
 * @property {Array<Profile>} users Accounts in id order, with their roles.
 */

/**
 * A rule's threshold met by one fingerprint's logs.
 * @typedef {Object} Alert
 * @property {number} count Matching logs counted in the window when it was raised.
 * @property {string} id
 * @property {string} incidentId
 * @property {string} message
 * @property {string} raisedAt
 * @property {string} ruleId
 * @property {string} ruleName
 * @property {string} serviceName
 * @property {Severity} severity The severity of the log that met the threshold.
 * @property {AlertStatus} status
 * @property {number} threshold
 * @property {string} type
 * @property {string} updatedAt
 * @property {number} windowSeconds
 */

/**
 * An alert's new status.
 * @typedef {Object} AlertPatchRequest
 * @property {AlertStatus} status OPEN → ACKNOWLEDGED → RESOLVED (or OPEN → RESOLVED).
 */

/**
 * An alert rule: `threshold` logs of one fingerprint matching it within `windowSeconds`
 * raise an alert and open (or reopen) the fingerprint's incident.
 * @typedef {Object} AlertRule
 * @property {string} createdAt
 * @property {boolean} enabled
 * @property {(number|null)} [escalateAfterMinutes] Minutes an incident it opens or reopens may stay unacknowledged before it escalates to each notified channel's `escalateTo` (overriding the channel's own delay).
 * @property {string} id A uuid, or `default` for the built-in rule on ERROR and FATAL.
 * @property {string} name
 * @property {(string|null)} [serviceName] Only logs of this service (all when absent).
 * @property {Array<Severity>} severities
 * @property {number} threshold
 * @property {(string|null)} [type] Only logs of this type (all when absent).
 * @property {string} updatedAt
 * @property {number} windowSeconds
 */

/**
 * Where an alert is.
 * @typedef {("OPEN"|"ACKNOWLEDGED"|"RESOLVED")} AlertStatus
 */

/**
 * One alert of a notification.
 * @typedef {Object} AlertmanagerAlert
 * @property {(Object<string, string>|null)} [annotations] `summary` (else `description`) is the log's message; kept as `annotations.{name}`.
 * @property {(string|null)} [endsAt] Alertmanager sends `0001-01-01T00:00:00Z` while it fires; empty is taken as no end too.
 * @property {(string|null)} [fingerprint] Alertmanager's hash of the labels: one incident per fingerprint.
 * @property {(string|null)} [generatorURL]
 * @property {Object<string, string>} labels The alert's labels: `service`, `job` or `app` name its service, `severity` its severity; all kept in the log's `attributes`.
 * @property {string} startsAt
 * @property {string} status
 */

/**
 * Alertmanager's webhook notification (payload version 4), as its webhook receiver sends it.
 * @typedef {Object} AlertmanagerNotification
 * @property {Array<AlertmanagerAlert>} alerts At most 500 (Alertmanager's `max_alerts`).
 * @property {(Object<string, string>|null)} [commonAnnotations]
 * @property {(Object<string, string>|null)} [commonLabels]
 * @property {(string|null)} [externalURL]
 * @property {(string|null)} [groupKey]
 * @property {(Object<string, string>|null)} [groupLabels]
 * @property {(string|null)} [receiver] The receiver's name: the service of alerts without a `service`, `job` or `app` label.
 * @property {(string|null)} [status] `firing` while any alert of the group fires.
 * @property {(number|null)} [truncatedAlerts]
 * @property {(string|null)} [version] `"4"`.
 */

/**
 * A query of stored analyses.
 * @typedef {Object} AnalysesQueryRequest
 * @property {(number|null)} [limit] 1 to 50 (default 20).
 * @property {(string|null)} [log_id] Only the analysis of this log (or the id of an analysis made without a log).
 * @property {(string|null)} [service_name] Only analyses of this service's logs.
 * @property {(string|null)} [text] Ranks analyses by relevance to this text (BM25 over what each analysed and concluded); without it, newest first. 1 to 1000 characters.
 */

/**
 * One stored analysis of a log's text.
 * @typedef {Object} Analysis
 * @property {string} created_at RFC 3339, UTC, milliseconds.
 * @property {string} created_by The user who asked for it.
 * @property {string} id The analysis's own id (a uuid).
 * @property {number} llm_latency_ms How long the model took to answer, in milliseconds.
 * @property {(string|null)} [log_id] The log it analyses (a platform log id), when one was named; analyses are stored by it.
 * @property {ProviderKind} mode The provider the request chose (`local` or `cloud`).
 * @property {string} model The model that answered.
 * @property {ProviderKind} provider The provider that answered.
 * @property {Array<string>} recommendations
 * @property {number} redactions Secrets replaced in the text before the model saw it.
 * @property {Array<AnalysisReference>} references What retrieval gave the model (empty unless `use_rag`).
 * @property {string} root_cause
 * @property {(string|null)} [service_name] The analysed log's service, when `log_id` named a stored log.
 * @property {AnalysisSeverity} severity
 * @property {string} summary
 */

/**
 * A retrieved passage an analysis was given, and cites.
 * @typedef {Object} AnalysisReference
 * @property {string} chunk The passage as the model was given it (secrets redacted).
 * @property {(number|null)} [chunk_index] The chunk's position in its runbook (from 0); absent for an analysis.
 * @property {string} id The runbook document's id, or the cited analysis's id.
 * @property {ReferenceKind} kind
 * @property {(string|null)} [log_id] The log the cited analysis is about, if any.
 * @property {number} score The retrieval score (BM25, or the fused rank score when embeddings are configured).
 * @property {string} title The runbook's title, or `Analysis of log {log_id}` for an analysis.
 */

/**
 * How serious the model judges what the log shows.
 * @typedef {("LOW"|"MEDIUM"|"HIGH"|"CRITICAL")} AnalysisSeverity
 */

/**
 * An analysis request.
 * @typedef {Object} AnalyzeRequest
 * @property {string} content The log text, 1 to 20,000 characters. Secrets in it are redacted before the model, the embeddings provider or the table sees it.
 * @property {(string|null)} [log_id] The log analysed: a log id of this platform (`POST /api/v1/logs` answers them); the analysis is stored under it and its author (replacing the caller's own earlier analysis of that log, never another operator's) and records its service.
 * @property {(ProviderKind|null)} [mode]
 * @property {(boolean|null)} [use_rag] Retrieve runbook chunks and earlier analyses for the model, and cite them in `references` (default false).
 */

/**
 * An app password as its person sees it in the list (never its secret).
 * @typedef {Object} AppPassword
 * @property {string} createdAt
 * @property {string} id
 * @property {(string|null)} [lastUsedAt] When an app last signed in or read with it, to the hour (null: never).
 * @property {string} name
 */

/**
 * A page of a person's app passwords, newest first.
 * @typedef {Object} AppPasswordPage
 * @property {Array<AppPassword>} items
 * @property {(string|null)} [nextCursor] The `cursor` of the next page; null on the last one.
 */

/**
 * A new app password as sent.
 * @typedef {Object} AppPasswordRequest
 * @property {string} name What the person calls it (the device or app): 1-100 characters, no control characters.
 */

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
 * Ask about a recipe, as sent.
 * @typedef {Object} AskRequest
 * @property {string} prompt
 * @property {RecipeInputBody} recipe
 */

/**
 * The model's answer.
 * @typedef {Object} AskResponse
 * @property {string} response
 */

/**
 * A post's author, as snapshotted when the post was written.
 * @typedef {Object} Author
 * @property {string} displayName
 * @property {string} id
 * @property {(string|null)} [organisation] Always null: the platform has no organisations.
 * @property {string} role `USER` or `ADMIN`.
 * @property {string} username
 */

/**
 * A provider and whether it can be chosen (the cloud provider needs `LLM_API_KEY`).
 * @typedef {Object} AvailableProvider
 * @property {boolean} configured
 * @property {ProviderKind} name
 */

/**
 * @typedef {("left"|"center"|"right"|"unclear")} Bias
 */

/**
 * A post's bookmark count and whether the caller has bookmarked it.
 * @typedef {Object} BookmarkResult
 * @property {boolean} isBookmarkedByMe
 * @property {number} saveCount
 */

/**
 * A notification channel as the API shows it (never its secret).
 * @typedef {Object} Channel
 * @property {(string|null)} [address] The address mailed (`email` only).
 * @property {string} createdAt
 * @property {(number|null)} [escalateAfterMinutes] Minutes an incident it was told of may stay unacknowledged before it escalates to `escalateTo`; a rule's `escalateAfterMinutes` overrides it; neither: no escalation.
 * @property {(string|null)} [escalateTo] The channel an escalation goes to.
 * @property {boolean} escalationOnly Only escalations reach it (it is a rule's next step, not a first responder).
 * @property {(boolean|null)} [hasToken] `ntfy` only: whether an access token is set (never returned).
 * @property {string} id
 * @property {string} kind `webhook`: a signed HTTPS POST of each event; `email`: a mail through SNS; `slack`, `teams`, `ntfy`: a chat message in each service's format.
 * @property {string} name
 * @property {(boolean|null)} [pendingConfirmation] `email` only: whether the address has yet to confirm its subscription (SNS mailed it a link; nothing reaches it before); absent when SNS did not say.
 * @property {(string|null)} [server] The ntfy server (`ntfy` only).
 * @property {Array<string>} services The services whose events it gets; empty: every service.
 * @property {Array<Severity>} severities The severities whose events it gets; empty: every severity (events without one, such as an acknowledgement, go to every channel of the service).
 * @property {(string|null)} [topic] The ntfy topic (`ntfy` only).
 * @property {(string|null)} [url] The webhook's URL (`webhook`); `slack` and `teams`: their URL with its secret parts masked (no query, the last path segment `****`).
 */

/**
 * The body of `POST /api/v1/notifications/channels` (documentation; parsed by [`parse_channel`]).
 * @typedef {Object} ChannelRequest
 * @property {(string|null)} [address] `email`: the address SNS mails (it must confirm the subscription first).
 * @property {(number|null)} [escalateAfterMinutes] The default escalation delay; needs `escalateTo`. A rule's delay overrides it.
 * @property {(string|null)} [escalateTo] The channel an escalation goes to (a channel id); alone, only rules that name a delay escalate.
 * @property {(boolean|null)} [escalationOnly]
 * @property {string} kind `webhook` (needs `url` and `secret`), `email` (needs `address`), `slack` or `teams` (need `url`), `ntfy` (needs `server` and `topic`, takes `token`); another kind's fields are refused.
 * @property {string} name
 * @property {(string|null)} [secret] `webhook`: signs each call (`X-Signature`); stored, never returned.
 * @property {(string|null)} [server] `ntfy`: the server's base URL (`https://ntfy.sh`, or a self-hosted one; https, http only to localhost; no query).
 * @property {(Array<string>|null)} [services]
 * @property {(Array<Severity>|null)} [severities]
 * @property {(string|null)} [token] `ntfy`: an access token (`tk_...`) sent as `Authorization: Bearer`; stored, never returned.
 * @property {(string|null)} [topic] `ntfy`: the topic published to.
 * @property {(string|null)} [url] `webhook`: `https://` (or `http://`) URL with a host; `slack`: the incoming webhook's URL (`https://hooks.slack.com/services/...`); `teams`: the Workflows trigger's URL (https; http only to localhost for chat kinds). Refused when it names or resolves to a private or reserved address.
 */

/**
 * A `ClientLogin` as sent (a form or a query): `Email` is the username or the account's
 * address, `Passwd` an app password. Other fields apps send (`service`, `accountType`,
 * `source`, `client`) are ignored.
 * @typedef {Object} ClientLoginRequest
 * @property {string} Email The username (what apps send) or the account's address.
 * @property {string} Passwd An app password of the account (never the account's own password).
 */

/**
 * A comment's new text.
 * @typedef {Object} CommentEditRequest
 * @property {string} text 1 to 500 characters once trimmed; no control characters but line breaks and tabs.
 */

/**
 * A like of a comment; `NONE` takes it back.
 * @typedef {("LIKE"|"NONE")} CommentLikeName
 */

/**
 * A like of a comment.
 * @typedef {Object} CommentLikeRequest
 * @property {CommentLikeName} type `LIKE`, or `NONE` to take it back.
 */

/**
 * A comment to add.
 * @typedef {Object} CommentRequest
 * @property {(string|null)} [parentId] The comment replied to, on the same post (nesting at most 16 deep), or null.
 * @property {string} text 1 to 500 characters once trimmed; no control characters but line breaks and tabs.
 */

/**
 * A comment on a post, with its replies.
 * @typedef {Object} CommunityComment
 * @property {Author} author
 * @property {string} createdAt
 * @property {boolean} deleted Deleted, kept for its replies: `text` and `author` are `[deleted]`.
 * @property {(string|null)} [editedAt] When its author last changed the text; null if never.
 * @property {string} id
 * @property {boolean} isLikedByMe
 * @property {number} likeCount
 * @property {Array<CommunityComment>} replies Replies, oldest first.
 * @property {string} text `[deleted]` for a deleted comment kept for its replies.
 */

/**
 * One notification in a member's inbox.
 * @typedef {Object} CommunityNotification
 * @property {NotificationActor} [actor] Who commented, replied, mentioned; absent for moderation and reports.
 * @property {string} [commentId] The comment concerned, when it is one.
 * @property {string} createdAt
 * @property {string} excerpt The start of the text concerned (at most 140 characters).
 * @property {string} id Time-ordered: the creation's milliseconds since the epoch and 16 hex digits.
 * @property {NotificationKind} kind
 * @property {ReportOutcome} [outcome] A resolved report's outcome.
 * @property {string} postId The post concerned (the comment's post for a comment).
 * @property {boolean} read
 * @property {string} [reason] The admin's reason of a removal, or their note on a report's outcome.
 */

/**
 * A page of the inbox, newest first.
 * @typedef {Object} CommunityNotificationPage
 * @property {Array<CommunityNotification>} content
 * @property {string} [nextCursor] The `cursor` of the next page; absent on the last page.
 * @property {number} unreadCount Unread notifications, counted up to 1,000 (a larger inbox says 1,000).
 */

/**
 * A member's report, as stored.
 * @typedef {Object} CommunityReport
 * @property {string} createdAt
 * @property {ReportOutcome} [outcome] How an admin resolved it; absent while it is open.
 * @property {ReportReason} reason
 * @property {string} targetId
 * @property {ReportTarget} targetType
 * @property {string} [text] The reporter's words, if any (at most 500 characters).
 */

/**
 * A topic with its statistics (how they are computed: [`crate::stats`]).
 * @typedef {Object} CommunityTopic
 * @property {number} activityScore Posts of the last 14 days, each weighted `2^(-age/7)`; 2 decimals.
 * @property {string} categoryId
 * @property {string} displayName
 * @property {number} followerCount
 * @property {string} id
 * @property {boolean} isHot At least 3 posts this week and at least 1.5 times the week before.
 * @property {string} name
 * @property {number} postsPrevWeek The same over the 7 days before.
 * @property {number} postsThisWeek Posts first published into the topic in the last 7 UTC days, today included.
 * @property {string} slug The slug of the name (API.md), the topic's identity across systems.
 * @property {number} sortOrder
 * @property {number} totalPostCount Published live posts in the topic now.
 */

/**
 * A topic by id and name.
 * @typedef {Object} CommunityTopicRef
 * @property {string} id
 * @property {string} name
 */

/**
 * The nutrients of a recipe, and where each ingredient's came from.
 * @typedef {Object} ComputedNutrients
 * @property {number} calories
 * @property {number} carbs
 * @property {Array<string>} estimatedByModel Ingredients the table does not know (name or unit), estimated by the model.
 * @property {number} fat
 * @property {Array<string>} fromFoodTable Ingredients computed from the service's food composition table (by name, with unit conversion).
 * @property {number} protein
 */

/**
 * A new app password: the only answer that holds its secret.
 * @typedef {Object} CreatedAppPassword
 * @property {string} createdAt
 * @property {string} id
 * @property {string} name
 * @property {string} password The password to give the app, shown this once: 32 characters of `a-z` and `2-7`.
 */

/**
 * The new recipe's id.
 * @typedef {Object} CreatedRecipe
 * @property {number} id
 */

/**
 * One attempt log of a channel for one event.
 * @typedef {Object} Delivery
 * @property {number} attempts
 * @property {(string|null)} [error] Why the last attempt failed.
 * @property {string} eventAt When the event happened.
 * @property {string} eventId
 * @property {string} eventType
 * @property {(number|null)} [httpStatus] The receiver's HTTP status of the last attempt, when it answered.
 * @property {string} incidentId
 * @property {string} lastAttemptAt
 * @property {string} status `DELIVERED` (a 2xx answer, or SNS took the mail) or `FAILED` (retried while SQS redelivers the event).
 */

/**
 * A digest with its events.
 * @typedef {({createdAt: string, digestDate: string, digestType: string, eventCount: number, generatedAt?: (string|null), id: string, previewHeadlines: Array<string>, readTimeMinutes: number, sourceCount: number, subtitle?: (string|null), summary?: (string|null), title: string, topics: Array<DigestTopicRef>} & {events: Array<Event>, model?: (string|null)})} DigestDetail
 */

/**
 * A digest generation job.
 * @typedef {Object} DigestGenerationJob
 * @property {string} createdAt
 * @property {string} digestDate
 * @property {(string|null)} [digestId] The digest the run produced or assigned (`GENERATED` only).
 * @property {(string|null)} [finishedAt]
 * @property {boolean} force
 * @property {string} id
 * @property {(string|null)} [message]
 * @property {string} status `PENDING`, `RUNNING`, then `GENERATED`, `SKIPPED` or `FAILED`.
 * @property {string} targetUserId
 */

/**
 * A page of digests, newest first.
 * @typedef {Object} DigestPage
 * @property {Array<DigestSummary>} content
 * @property {(string|null)} [nextCursor] The next page's `cursor` (days before this page's last); absent on the last page.
 * @property {number} page
 * @property {number} size
 * @property {number} totalElements
 * @property {number} totalPages
 */

/**
 * A digest without its events.
 * @typedef {Object} DigestSummary
 * @property {string} createdAt
 * @property {string} digestDate
 * @property {string} digestType `PERSONAL` or `PUBLIC`.
 * @property {number} eventCount
 * @property {(string|null)} [generatedAt]
 * @property {string} id
 * @property {Array<string>} previewHeadlines The first events' headlines (at most 3).
 * @property {number} readTimeMinutes
 * @property {number} sourceCount Distinct sources over all events.
 * @property {(string|null)} [subtitle]
 * @property {(string|null)} [summary]
 * @property {string} title Built by the service: `Your digest for Monday, 1 September 2025` (PERSONAL) or `Daily digest for Monday, 1 September 2025` (PUBLIC).
 * @property {Array<DigestTopicRef>} topics
 */

/**
 * A topic by id and name.
 * @typedef {Object} DigestTopicRef
 * @property {string} id
 * @property {string} name 1 to 100 characters.
 */

/**
 * A feed found at a site's address, for a person to choose from.
 * @typedef {Object} DiscoveredFeed
 * @property {FeedKind} kind
 * @property {string} title The title the page gives the feed (its link's `title`), else the feed's own title, else its format's name.
 * @property {string} url The feed's address, absolute: what `POST /api/content/sources` takes.
 */

/**
 * The feeds found at an address.
 * @typedef {Object} DiscoveredFeeds
 * @property {Array<DiscoveredFeed>} feeds The feed itself when the address is one; else the feeds the page links to, in its order (at most 10); else the first of the usual paths (`/feed`, `/rss`, `/atom.xml`, `/feed.xml`, `/rss.xml`, `/index.xml`, `/feed/`) that serves a feed. Never empty.
 */

/**
 * A site's address to find feeds at.
 * @typedef {Object} DiscoveryRequest
 * @property {string} url An http(s) URL: a site's page, or a feed (at most 2048 characters).
 */

/**
 * The embeddings that make retrieval hybrid.
 * @typedef {Object} EmbeddingsHealth
 * @property {boolean} configured `EMBEDDINGS_MODEL` is set: retrieval fuses BM25 with cosine similarity.
 * @property {(string|null)} [model]
 */

/**
 * The detailed error body (news reader, recipes, incident platform).
 * @typedef {Object} ErrorBody
 * @property {number} code The HTTP status.
 * @property {Array<string>} details `field: reason` entries; empty when none.
 * @property {string} message
 * @property {string} path The request path as the answering service sees it (without the gateway prefix).
 * @property {string} timestamp ISO 8601 UTC.
 */

/**
 * One event of a digest: a story, possibly reported by several sources.
 * @typedef {Object} Event
 * @property {string} headline 1 to 300 characters, not blank.
 * @property {Array<EventSource>} sources At most 10 sources.
 * @property {Array<string>} summaryBullets At most 5 bullets of at most 500 characters.
 * @property {Array<string>} topicIds At most 20 topic ids.
 */

/**
 * One report of an event: which outlet, where, when, under which title.
 * @typedef {Object} EventSource
 * @property {string} provider The host of the article's link (`news.example.com`), else the source's name; at most 500 characters.
 * @property {(string|null)} [publishedAt]
 * @property {string} sourceName The news source's title (the feed's name); at most 500 characters.
 * @property {string} title The article's headline at that source; at most 500 characters.
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
 * `ExportLogsPartialSuccess` in OTLP JSON.
 * @typedef {Object} ExportLogsPartialSuccess
 * @property {string} errorMessage Why, one reason a line.
 * @property {string} rejectedLogRecords The records refused (an int64, written as a string).
 */

/**
 * A body of OTLP/JSON, as the specification maps `ExportLogsServiceRequest`
 * (`resourceLogs[].scopeLogs[].logRecords[]`).
 * @typedef {Object} ExportLogsServiceRequest
 * @property {Array<Object<string, unknown>>} [resourceLogs] At most 10,000 log records in all. Absent or empty: nothing to take (the specification's empty export, answered 200).
 */

/**
 * `ExportLogsServiceResponse` in OTLP JSON.
 * @typedef {Object} ExportLogsServiceResponse
 * @property {(ExportLogsPartialSuccess|null)} [partialSuccess]
 */

/**
 * A post whose summary failed (the product's "Failed-summary row").
 * @typedef {Object} FailedSummary
 * @property {string} authorId
 * @property {string} id
 * @property {string} summaryStatus
 * @property {string} title The post's title now.
 * @property {string} updatedAt When the summary was given up.
 */

/**
 * A page of failed summaries, most recently failed first.
 * @typedef {Object} FailedSummaryPage
 * @property {Array<FailedSummary>} content
 * @property {string} [nextCursor] The `cursor` of the next page; absent on the last page.
 * @property {number} page
 * @property {number} size
 * @property {number} totalElements The failed summaries, counted up to 1,000: a longer list says 1,000 (page on with `nextCursor`).
 * @property {number} totalPages Pages of `totalElements`.
 */

/**
 * The format of a feed: RSS (0.9x, 1.0, 2.0), Atom or JSON Feed.
 * @typedef {("rss"|"atom"|"json")} FeedKind
 */

/**
 * What became of one feed of an import.
 * @typedef {("subscribed"|"alreadySubscribed"|"notAFeed"|"unreachable"|"invalid"|"failed")} FeedOutcome
 */

/**
 * One feed's result.
 * @typedef {Object} FeedResult
 * @property {Array<string>} labels The labels it was given: its folders and categories in the file.
 * @property {(string|null)} [message] Why, for the other outcomes; or what was left out (labels past the cap).
 * @property {FeedOutcome} outcome
 * @property {(string|null)} [sourceId] The source subscribed to (subscribed, alreadySubscribed).
 * @property {string} title Its title in the file (may be empty).
 * @property {string} url The feed's address as the file gives it.
 */

/**
 * Follower count changes by topic name.
 * @typedef {Object} FollowerDeltasRequest
 * @property {Object<string, number>} deltas Topic name → change (+1 follow, -1 unfollow; -1000 to 1000), at most 200 names.
 */

/**
 * Whether a source's articles get the text of their page.
 * @typedef {("on"|"off"|"auto")} FullTextMode
 */

/**
 * The API gateway's own refusal, answered before the function sees the request.
 * @typedef {Object} GatewayRefusal
 * @property {string} message `Request Entity Too Large`
 */

/**
 * The request body every GenAI operation takes. Exactly one of `articleId` or `text`;
 * the other fields are read by the operation they belong to and ignored by the others.
 * (The function's contract adds the "exactly one" and, for `qa`, the required `question`.)
 * @typedef {({articleId?: string, knowledgeLevel?: (KnowledgeLevel|null), length?: (SummaryLength|null), question?: (string|null), style?: (SummaryStyle|null), text?: string} & Object<string, unknown>)} GenAiRequest
 */

/**
 * Generate recipes, as sent.
 * @typedef {Object} GenerateRequest
 * @property {(RecipeLanguage|null)} [language]
 * @property {string} prompt
 */

/**
 * What a generation for one user did.
 * @typedef {Object} GenerationOutcome
 * @property {(DigestDetail|null)} [digest]
 * @property {string} message
 * @property {string} status `GENERATED` (a new PERSONAL digest, or the day's PUBLIC one assigned) or `SKIPPED`.
 */

/**
 * A label a subscription carries.
 * @typedef {Object} GreaderCategory
 * @property {string} id `user/-/label/{name}`.
 * @property {string} label
 */

/**
 * An item's text.
 * @typedef {Object} GreaderContent
 * @property {string} content HTML.
 * @property {string} direction
 */

/**
 * The form of `disable-tag`.
 * @typedef {Object} GreaderDisableTagForm
 * @property {(string|null)} [T]
 * @property {Array<string>} s Labels to delete, repeated: `user/-/label/{name}`.
 * @property {(string|null)} [t] A label's bare name (FreshRSS takes it).
 */

/**
 * The form of `edit-tag`.
 * @typedef {Object} GreaderEditTagForm
 * @property {(string|null)} [T] The action token.
 * @property {Array<string>} a States to add, repeated: `user/-/state/com.google/read` (mark read), `…/kept-unread` (mark unread), `…/starred`. Labels (`user/-/label/…`) are on subscriptions here, and change nothing on items.
 * @property {Array<string>} i Item ids, repeated, 1 to 1000.
 * @property {Array<string>} r States to remove, repeated: `…/read` (mark unread), `…/kept-unread` (mark read), `…/starred` (unstar).
 */

/**
 * An article as a stream answers it.
 * @typedef {Object} GreaderItem
 * @property {Array<GreaderTypedLink>} alternate
 * @property {(string|null)} [author]
 * @property {Array<GreaderLink>} canonical
 * @property {Array<string>} categories `user/-/state/com.google/reading-list`, the source's labels, `…/read` when read and `…/starred` when starred.
 * @property {GreaderContent} content
 * @property {string} crawlTimeMsec The publication time in milliseconds, as a string.
 * @property {Array<GreaderTypedLink>} enclosure
 * @property {string} id The long form: `tag:google.com,2005:reader/item/{16 hex}`.
 * @property {GreaderOrigin} origin
 * @property {number} published The publication time in seconds.
 * @property {GreaderContent} summary
 * @property {string} timestampUsec The publication time in microseconds, as a string (Reeder orders by it).
 * @property {string} title
 * @property {number} updated
 */

/**
 * `stream/items/ids`.
 * @typedef {Object} GreaderItemIds
 * @property {(string|null)} [continuation]
 * @property {Array<GreaderItemRef>} itemRefs
 */

/**
 * One id of `stream/items/ids`.
 * @typedef {Object} GreaderItemRef
 * @property {Array<string>} directStreamIds `feed/{sourceId}` of the item.
 * @property {string} id The short form: a decimal number, as a string.
 * @property {string} timestampUsec The publication time in microseconds, as a string.
 */

/**
 * The form of `stream/items/contents` (and of a posted `stream/items/ids`).
 * @typedef {Object} GreaderItemsForm
 * @property {(string|null)} [T] The action token (see `token`); optional on reads.
 * @property {Array<string>} i Item ids, repeated (`i=…&i=…`), 1 to 1000: the long form, 16 hex digits or the decimal short form.
 * @property {(string|null)} [output] `json`.
 * @property {(string|null)} [s] The stream (a posted `stream/items/ids`).
 */

/**
 * `{href}`.
 * @typedef {Object} GreaderLink
 * @property {string} href
 */

/**
 * The form of `mark-all-as-read`.
 * @typedef {Object} GreaderMarkAllAsReadForm
 * @property {(string|null)} [T]
 * @property {string} s `user/-/state/com.google/reading-list` (everything), `feed/{sourceId}` or `user/-/label/{name}`.
 * @property {(string|null)} [ts] Only items published up to this time: microseconds since 1970 (seconds and milliseconds are told by their digits); now when absent.
 */

/**
 * Where an item comes from.
 * @typedef {Object} GreaderOrigin
 * @property {string} htmlUrl
 * @property {string} streamId `feed/{sourceId}`.
 * @property {string} title
 */

/**
 * `subscription/quickadd`.
 * @typedef {Object} GreaderQuickAdd
 * @property {(string|null)} [error] Why nothing was added.
 * @property {number} numResults 1 when subscribed, 0 when the address gave no feed.
 * @property {(string|null)} [query]
 * @property {(string|null)} [streamId] `feed/{sourceId}`.
 * @property {(string|null)} [streamName]
 */

/**
 * The form of `subscription/quickadd`.
 * @typedef {Object} GreaderQuickAddForm
 * @property {(string|null)} [T]
 * @property {string} quickadd A feed's http(s) URL (at most 2048 characters), bare or as `feed/{url}`.
 */

/**
 * The form of `rename-tag`.
 * @typedef {Object} GreaderRenameTagForm
 * @property {(string|null)} [T]
 * @property {string} dest Its new name: `user/-/label/{name}` (1-100 characters, no `/`).
 * @property {string} s The label: `user/-/label/{name}`.
 */

/**
 * `stream/contents/{stream}` and `stream/items/contents`.
 * @typedef {Object} GreaderStream
 * @property {(string|null)} [continuation] Sent back as `c` for the next page; absent on the last.
 * @property {string} direction
 * @property {string} id The stream asked for (the reading list for `stream/items/contents`).
 * @property {Array<GreaderItem>} items
 * @property {string} title
 * @property {number} updated
 */

/**
 * One subscription of `subscription/list`.
 * @typedef {Object} GreaderSubscription
 * @property {Array<GreaderCategory>} categories
 * @property {string} htmlUrl The site's address ("" when the feed names none).
 * @property {string} iconUrl Always "": the reader keeps no icons (Miniflux answers "" for a feed without one).
 * @property {string} id `feed/{sourceId}`.
 * @property {string} title
 * @property {string} url The feed's URL.
 */

/**
 * The form of `subscription/edit`.
 * @typedef {Object} GreaderSubscriptionEditForm
 * @property {(string|null)} [T]
 * @property {Array<string>} a Labels to put the feeds in, repeated: `user/-/label/{name}`.
 * @property {string} ac `subscribe`, `unsubscribe` or `edit`.
 * @property {Array<string>} r Labels to take the feeds out of, repeated.
 * @property {Array<string>} s Feeds, repeated: `feed/{sourceId}`, or `feed/{url}` (what `subscribe` takes).
 * @property {(string|null)} [t] A title: feeds are shared, so their titles are the feeds' own, and this changes nothing.
 */

/**
 * `subscription/list`.
 * @typedef {Object} GreaderSubscriptionList
 * @property {Array<GreaderSubscription>} subscriptions
 */

/**
 * One tag of `tag/list`: the starred state, or a label (a folder).
 * @typedef {Object} GreaderTag
 * @property {string} id
 * @property {(string|null)} [label]
 * @property {(string|null)} [type] `folder` for a label (Inoreader's and Miniflux's word).
 * @property {(number|null)} [unread_count]
 */

/**
 * `tag/list`.
 * @typedef {Object} GreaderTagList
 * @property {Array<GreaderTag>} tags
 */

/**
 * `{href, type}`.
 * @typedef {Object} GreaderTypedLink
 * @property {string} href
 * @property {string} type
 */

/**
 * One stream's count of `unread-count`.
 * @typedef {Object} GreaderUnreadCount
 * @property {number} count
 * @property {string} id
 * @property {string} newestItemTimestampUsec The newest article's time in microseconds, as a string.
 */

/**
 * `unread-count`: every feed's, every label's and the reading list's.
 * @typedef {Object} GreaderUnreadCounts
 * @property {number} max The reading list's count.
 * @property {Array<GreaderUnreadCount>} unreadcounts
 */

/**
 * `user-info`.
 * @typedef {Object} GreaderUserInfo
 * @property {string} userEmail The username, as Miniflux answers (clients show it as the account's name).
 * @property {string} userId
 * @property {string} userName
 * @property {string} userProfileId
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
 * A histogram bucket: observations at or below `le` seconds.
 * @typedef {Object} HistogramBucket
 * @property {number} count
 * @property {string} le The upper bound in seconds (`"0.05"`, ..., `"+Inf"`), as in the exposition.
 */

/**
 * The content type of an image to upload.
 * @typedef {("image/png"|"image/jpeg"|"image/gif"|"image/webp")} ImageContentType
 */

/**
 * The form of an upload: one image in the field `file`. Other fields are ignored.
 * @typedef {Object} ImageUpload
 * @property {string} file A PNG, JPEG, GIF or WebP image of 1 byte to 5 MiB, recognised by its content (the part's declared type and file name are ignored).
 */

/**
 * An import's progress, with a page of its results in the file's order.
 * @typedef {Object} ImportProgress
 * @property {string} createdAt
 * @property {number} done Feeds with a result so far.
 * @property {string} id
 * @property {(string|null)} [nextCursor] The cursor of the next page of results; absent on the last.
 * @property {Array<FeedResult>} results Results after the page's `cursor`, in the file's order (only feeds already done).
 * @property {ImportStatus} status `done` once every feed has its result.
 * @property {number} total
 */

/**
 * Import a recipe from a page, as sent.
 * @typedef {Object} ImportRequest
 * @property {string} url The recipe page (http or https, no user name or password).
 */

/**
 * An import just started.
 * @typedef {Object} ImportStarted
 * @property {number} done
 * @property {string} id The import's id: `GET /reader/imports/{id}` shows its progress.
 * @property {ImportStatus} status
 * @property {number} total Feeds to import (each feed once, however many outlines name it).
 */

/**
 * Whether an import has results for all its feeds.
 * @typedef {("running"|"done")} ImportStatus
 */

/**
 * How an imported recipe was read.
 * @typedef {("structured"|"model")} ImportedBy
 */

/**
 * A problem: the logs of one fingerprint that an alert rule raised on.
 * @typedef {Object} Incident
 * @property {(string|null)} [assignee]
 * @property {string} fingerprint SHA-256 of service, type and normalised message (hex).
 * @property {string} firstSeen
 * @property {string} groupedBy Why logs were grouped here, in words.
 * @property {string} id 32 hex digits, derived from the fingerprint: one incident per fingerprint, ever.
 * @property {string} lastSeen
 * @property {(string|null)} [mergedInto] The incident an operator merged this one into (32 hex digits): its logs and count went there, and so do its fingerprint's new logs.
 * @property {string} normalizedMessage The message with numbers, ids and timestamps replaced by `#`: what grouped the logs.
 * @property {number} occurrences Logs grouped into this incident (every log that matched an alert rule).
 * @property {string} openedAt
 * @property {number} reopenCount How often a new occurrence reopened it after it was RESOLVED.
 * @property {string} sampleMessage The first grouped log's message, as it was.
 * @property {string} serviceName
 * @property {(Severity|null)} [severity]
 * @property {Array<string>} [silencedBy] The silences holding back its notifications and escalation (their ids); absent when none does. It is recorded, grouped and alerted as usual meanwhile.
 * @property {IncidentStatus} status
 * @property {string} type
 * @property {string} updatedAt
 */

/**
 * How many incidents have each status.
 * @typedef {Object} IncidentCounts
 * @property {number} ACKNOWLEDGED
 * @property {number} ACTIVE
 * @property {number} RESOLVED
 */

/**
 * An incident with samples of its grouped logs and its history.
 * @typedef {(Incident & {history: Array<IncidentEvent>, recentOccurrences: Array<Occurrence>})} IncidentDetail
 */

/**
 * One change of an incident made through the API.
 * @typedef {Object} IncidentEvent
 * @property {(string|null)} [assignee]
 * @property {string} at
 * @property {string} by The user who made the change, or `system` for a log.
 * @property {(IncidentStatus|null)} [from]
 * @property {(string|null)} [note]
 * @property {IncidentStatus} to
 */

/**
 * An operator's merge of the incident into another.
 * @typedef {Object} IncidentMergeRequest
 * @property {string} into The incident that stays (32 lower-case hex digits): not this one, not a merged one.
 * @property {(string|null)} [note] At most 2000 characters, kept in the merged incident's history.
 */

/**
 * An incident's update.
 * @typedef {Object} IncidentPatchRequest
 * @property {(string|null)} [assignee] The username of an operator (`GET /api/v1/operators`): anyone else is a 400 naming `assignee`. At most 100 characters.
 * @property {(string|null)} [note] At most 2000 characters, kept in the history.
 * @property {(IncidentStatus|null)} [status]
 */

/**
 * Where an incident is in its lifecycle.
 * @typedef {("ACTIVE"|"ACKNOWLEDGED"|"RESOLVED")} IncidentStatus
 */

/**
 * The retrieval index's figures.
 * @typedef {Object} IndexHealth
 * @property {(number|null)} [analyses]
 * @property {(number|null)} [documents]
 * @property {string} ranking `bm25`, or `hybrid` (BM25 fused with embeddings).
 * @property {(number|null)} [runbook_chunks]
 * @property {string} status `ok`, or `unavailable` when the table cannot be read.
 */

/**
 * The answer to an accepted ingestion: the logs are on the ingest queue.
 * @typedef {Object} IngestAccepted
 * @property {number} accepted
 * @property {Array<string>} ids The ids the logs will have in the timeline, in the order sent.
 */

/**
 * An issued ingest key as listed: never its secret.
 * @typedef {Object} IngestKey
 * @property {string} createdAt
 * @property {string} createdBy The admin who issued it (username).
 * @property {string} id 32 hex digits; the key itself starts `ik_{id}_`.
 * @property {(string|null)} [lastUsed] When it last ingested (to the minute); absent when never used.
 * @property {string} name
 * @property {KeyRateLimit} rateLimit
 * @property {Array<string>} services The services it may send; empty: any.
 */

/**
 * An ingest key to issue.
 * @typedef {Object} IngestKeyRequest
 * @property {string} name What the key is for (a sender, a deployment): 1 to 100 characters, not blank.
 * @property {(KeyRateLimit|null)} [rateLimit]
 * @property {(Array<string>|null)} [services] The services it may send (at most 50; repeats kept once); absent or empty: any. A batch naming another service is refused whole (403).
 */

/**
 * An ingredient on input (the contract's `oneOf`; [`RawIngredient`] reads both).
 * @typedef {(IngredientLine|StructuredIngredient)} IngredientInput
 */

/**
 * An ingredient as one line, parsed on the server: `1/2 cup cream`, `½ tsp chili flakes`,
 * `1-2 cloves garlic, crushed`, `a pinch of salt`, `salt to taste`.
 * @typedef {Object} IngredientLine
 * @property {string} line
 */

/**
 * One instruction: 1 to 1000 characters, not blank.
 * @typedef {string} InstructionStep
 */

/**
 * `GET /health`: the intelligence function, its providers and its index.
 * @typedef {Object} IntelligenceHealth
 * @property {EmbeddingsHealth} embeddings
 * @property {IndexHealth} index
 * @property {ProvidersHealth} providers
 * @property {string} status `ok`; `unavailable` (with a 503) when the index's table cannot be read.
 */

/**
 * A user as other services of the platform see them (the community's authors and list
 * privacy).
 * @typedef {Object} InternalUser
 * @property {string} displayName The profile's name, else the username.
 * @property {Array<string>} followedTopics The topic slugs the user follows (the community's personal digests).
 * @property {string} id
 * @property {Array<Role>} roles
 * @property {boolean} showBookmarks Whether others may see the user's bookmarks (false until the user turns it on).
 * @property {boolean} showLikes Whether others may see the user's likes (false until the user turns it on).
 * @property {string} username
 */

/**
 * A page of the user directory.
 * @typedef {Object} InternalUserIds
 * @property {Array<string>} ids User ids in id order.
 * @property {(string|null)} [nextCursor] The `cursor` of the next page; null on the last one.
 */

/**
 * A key just issued: the only time its secret is shown.
 * @typedef {(IngestKey & {key: string})} IssuedIngestKey
 */

/**
 * An article of the stream by id only (the Google Reader `stream/items/ids`).
 * @typedef {Object} ItemRef
 * @property {string} id The article's id (32 hex).
 * @property {number} itemId Its Google Reader item id, as a signed decimal (the short form).
 * @property {string} publishedAt
 * @property {string} sourceId
 * @property {string} [starredAt] When the person starred it (the starred stream's order).
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
 * A key's own rate limit: at most `requests` ingestions per `windowSeconds`.
 * @typedef {Object} KeyRateLimit
 * @property {number} requests
 * @property {number} windowSeconds
 */

/**
 * @typedef {("child"|"beginner"|"intermediate"|"expert")} KnowledgeLevel
 */

/**
 * A subscription's labels.
 * @typedef {Object} LabelList
 * @property {Array<LabelNameSchema>} labels At most 10 distinct names, each 1 to 100 characters, without control characters or `/`; a person uses at most 100 labels. Empty: no label.
 */

/**
 * A label's name (the schema of [`LabelList`]'s items).
 * @typedef {string} LabelNameSchema
 */

/**
 * The person's labels.
 * @typedef {Object} LabelPage
 * @property {Array<LabelSummary>} items Every label, by name (at most 100, so one page).
 */

/**
 * A label's new name.
 * @typedef {Object} LabelRename
 * @property {string} name 1 to 100 characters, without control characters or `/`.
 */

/**
 * A label with the unread articles of its subscriptions.
 * @typedef {Object} LabelSummary
 * @property {string} name
 * @property {string} [newestAt] The newest article of its subscriptions.
 * @property {number} subscriptions Subscriptions carrying it.
 * @property {number} unread
 */

/**
 * A comment's like count and whether the caller likes it.
 * @typedef {Object} LikeResult
 * @property {boolean} isLikedByMe
 * @property {number} likeCount
 */

/**
 * One stored log of the timeline.
 * @typedef {Object} Log
 * @property {(LogAction|null)} [action]
 * @property {(Object<string, string>|null)} [attributes] What the shipper said about the log beside its message: Loki stream labels and structured metadata, OTLP resource and record attributes (at most 64; names 1 to 128 characters, values at most 2,048; scrubbed like `logContent`).
 * @property {(string|null)} [fingerprint] The grouping key the client sent (`fingerprint`, or its alias `dedup_key`): logs of one service with one key are one incident, whatever their messages.
 * @property {string} id Assigned at ingestion: the log's time in milliseconds (13 digits), `-`, 32 hex digits.
 * @property {string} logContent
 * @property {string} receivedAt When the platform accepted it.
 * @property {string} serviceName
 * @property {Severity} severity
 * @property {(LogSource|null)} [source]
 * @property {(string|null)} [spanId] The span the log was written in (16 lower-case hex digits).
 * @property {string} timestamp When the log happened (RFC 3339, UTC, milliseconds), as the client sent it.
 * @property {(string|null)} [traceId] The trace the log was written in (W3C trace id: 32 lower-case hex digits).
 * @property {string} type
 */

/**
 * What a log asks of the incident its `fingerprint` names.
 * @typedef {("trigger"|"acknowledge"|"resolve")} LogAction
 */

/**
 * 1 to 500 logs at once.
 * @typedef {Array<LogSubmission>} LogBatch
 */

/**
 * The path a log came in by.
 * @typedef {("api"|"loki"|"otlp"|"alertmanager"|"pagerduty")} LogSource
 */

/**
 * One log as a client sends it.
 * @typedef {Object} LogSubmission
 * @property {Object<string, string>} [attributes]
 * @property {(string|null)} [dedup_key] Alias of `fingerprint` (PagerDuty's name), same bounds.
 * @property {(string|null)} [fingerprint] The grouping key, used as given: logs of one `serviceName` with one key are one incident whatever their messages (absent: the default fingerprint). 1 to 200 visible ASCII characters, no spaces; `dedup_key` is its alias (give one, not both).
 * @property {string} logContent 1 to 16384 characters, not blank.
 * @property {string} serviceName 1 to 100 characters, not blank.
 * @property {Severity} severity
 * @property {(string|null)} [spanId] The span id the log was written in: 16 lower-case hex digits, not all zero.
 * @property {(string|null)} [timestamp] When it happened: RFC 3339, in the year 2000 or later and at most 24 hours ahead; absent: when it was received.
 * @property {(string|null)} [traceId] The W3C trace id the log was written in: 32 lower-case hex digits, not all zero.
 * @property {string} type Free text (DEPLOYMENT_LOG, APPLICATION_LOG, ...), 1 to 100 characters, not blank.
 */

/**
 * A note or a postmortem, optionally about one incident.
 * @typedef {Object} LogbookEntry
 * @property {string} author The username of the writer.
 * @property {string} authorId
 * @property {string} body
 * @property {string} createdAt
 * @property {string} id
 * @property {(string|null)} [incidentId]
 * @property {LogbookKind} kind
 * @property {string} title
 * @property {string} updatedAt
 * @property {number} version 1 when written, one more at each edit; an edit sends the version it read and is refused (409) when the entry has moved on since.
 */

/**
 * A logbook entry's kind.
 * @typedef {("NOTE"|"POSTMORTEM")} LogbookKind
 */

/**
 * A logbook entry's replacement, with the version it was made on.
 * @typedef {Object} LogbookReplaceRequest
 * @property {string} body 1 to 20000 characters.
 * @property {(string|null)} [incidentId] The incident it is about (32 hex digits; it must exist).
 * @property {(LogbookKind|null)} [kind]
 * @property {string} title 1 to 200 characters.
 * @property {number} version The entry's `version` as read: the edit is refused (409) when the entry has moved on.
 */

/**
 * A logbook entry, created or replaced.
 * @typedef {Object} LogbookRequest
 * @property {string} body 1 to 20000 characters.
 * @property {(string|null)} [incidentId] The incident it is about (32 hex digits; it must exist).
 * @property {(LogbookKind|null)} [kind]
 * @property {string} title 1 to 200 characters.
 */

/**
 * A login: the username and password given at registration.
 * @typedef {Object} Login
 * @property {string} password At most 128 characters, as at registration.
 * @property {string} username Not blank; at most 64 characters, the longest any registration allows (the recipe service's).
 */

/**
 * A user token: a JWT to send as `Authorization: Bearer <token>`.
 * @typedef {Object} LoginToken
 * @property {string} token
 */

/**
 * One log, or a batch of 1 to 500.
 * @typedef {(LogSubmission|LogBatch)} LogsRequest
 */

/**
 * A JSON push: streams of labels and entries.
 * @typedef {Object} LokiPush
 * @property {Array<LokiStream>} streams At most 1,000 streams, and at most 10,000 entries in all.
 */

/**
 * One stream: its labels and its entries.
 * @typedef {Object} LokiStream
 * @property {Object<string, string>} stream
 * @property {(Array<Array<unknown>>|null)} [values]
 */

/**
 * What "mark all as read" covers.
 * @typedef {Object} MarkAllRead
 * @property {(string|null)} [before] Articles published before this time (default now; a later time counts as now).
 * @property {(string|null)} [label] The subscriptions carrying this label.
 * @property {(string|null)} [sourceId] One subscription (with `label`: it must carry that label).
 */

/**
 * An article id to mark (the schema of [`MarkRequest`]'s items): not blank, at most 200
 * characters.
 * @typedef {string} MarkIdSchema
 */

/**
 * The notifications to mark read.
 * @typedef {Object} MarkReadRequest
 * @property {Array<NotificationIdText>} ids 1 to 100 of the caller's notification ids (ids of none are skipped).
 */

/**
 * Marks on articles.
 * @typedef {Object} MarkRequest
 * @property {Array<MarkIdSchema>} ids Article ids, 1 to 1000, none blank (unknown ones are left out).
 * @property {(boolean|null)} [read] Read (`true`) or unread (`false`).
 * @property {(boolean|null)} [starred] Starred (`true`) or not (`false`).
 */

/**
 * What a mark request did.
 * @typedef {Object} Marked
 * @property {number} marked Articles found and marked (unknown ids are left out).
 */

/**
 * What a silence holds back: each non-empty matcher must match.
 * @typedef {Object} Matchers
 * @property {Object<string, string>} labels Each must equal the incident's log attribute of that name.
 * @property {Array<string>} services
 * @property {Array<Severity>} severities
 * @property {Array<string>} types
 */

/**
 * What a silence holds back: every matcher given must match (at least one is non-empty).
 * @typedef {Object} MatchersRequest
 * @property {(Object<string, string>|null)} [labels] Each label equals the incident's log attribute of that name (Loki labels, OTLP attributes, Alertmanager labels); at most 20, names 1-128 characters, values at most 2048.
 * @property {(Array<string>|null)} [services] The incident's service is one of these.
 * @property {(Array<Severity>|null)} [severities] The incident's severity (of the log that opened it) is one of these.
 * @property {(Array<string>|null)} [types] The incident's log type is one of these.
 */

/**
 * The recipe service's Message.
 * @typedef {Object} Message
 * @property {string} message
 */

/**
 * One metric family.
 * @typedef {Object} MetricFamily
 * @property {string} help
 * @property {string} name
 * @property {Array<MetricSeries>} series
 * @property {string} type `counter`, `gauge` or `histogram`.
 */

/**
 * One series: its labels and its value (counters, gauges) or buckets, sum and count
 * (histograms).
 * @typedef {Object} MetricSeries
 * @property {(Array<HistogramBucket>|null)} [buckets] Cumulative, as Prometheus's `_bucket` series; the last is `+Inf`.
 * @property {(number|null)} [count]
 * @property {Object<string, string>} labels
 * @property {(number|null)} [sum] The sum of the observations, in seconds.
 * @property {(number|null)} [value]
 */

/**
 * The platform's metrics, as the dashboard reads them: the same families, series and
 * figures as `GET /prometheus`.
 * @typedef {Object} MetricsReport
 * @property {string} generatedAt When the figures were read (RFC 3339, UTC).
 * @property {Array<MetricFamily>} metrics
 */

/**
 * One admin removal, as the moderation log shows it.
 * @typedef {Object} ModerationLogEntry
 * @property {string} authorId The author of what was removed.
 * @property {string} id
 * @property {string} moderatorId The admin who removed it.
 * @property {string} postId The post removed, or the post of the comment removed.
 * @property {string} reason
 * @property {string} removedAt
 * @property {string} targetId The post's or the comment's id.
 * @property {ModerationTarget} targetKind
 */

/**
 * A page of the moderation log, newest first.
 * @typedef {Object} ModerationLogPage
 * @property {Array<ModerationLogEntry>} content
 * @property {string} [nextCursor] The `cursor` of the next page; absent on the last page.
 * @property {number} page
 * @property {number} size
 * @property {number} totalElements The entries, counted up to 1,000: a longer log says 1,000 (page on with `nextCursor`).
 * @property {number} totalPages Pages of `totalElements`.
 */

/**
 * What an admin removed.
 * @typedef {("POST"|"COMMENT")} ModerationTarget
 */

/**
 * Who caused a notification.
 * @typedef {Object} NotificationActor
 * @property {string} id
 * @property {string} username
 */

/**
 * A notification's id (`Notification.id`).
 * @typedef {string} NotificationIdText
 */

/**
 * Why a member was notified.
 * @typedef {("COMMENT"|"REPLY"|"MENTION"|"REMOVED"|"REPORT_RESOLVED")} NotificationKind
 */

/**
 * Nutrients of one portion: the recipe's divided by its portions (at least 0.5, so up to
 * twice a recipe's bound). The contract's shape only.
 * @typedef {Object} NutrientsPerPortion
 * @property {number} calories
 * @property {number} carbs
 * @property {number} fat
 * @property {number} protein
 */

/**
 * Compute nutrients, as sent.
 * @typedef {Object} NutrientsRequest
 * @property {RecipeInputBody} recipe
 */

/**
 * One log grouped into an incident, and why.
 * @typedef {Object} Occurrence
 * @property {(Object<string, string>|null)} [attributes] The log's attributes (see the log's `attributes`).
 * @property {string} logContent
 * @property {string} logId
 * @property {Array<string>} ruleIds The alert rules the log matched.
 * @property {Severity} severity
 * @property {(string|null)} [spanId] The log's span (16 lower-case hex digits).
 * @property {string} timestamp
 * @property {(string|null)} [traceId] The log's trace (32 lower-case hex digits).
 */

/**
 * A person incidents may be assigned to.
 * @typedef {Object} Operator
 * @property {string} lastSeen The UTC day (`YYYY-MM-DD`) they were last seen on the incident platform.
 * @property {Array<string>} roles OPERATOR and/or ADMIN, as their last token said.
 * @property {string} username Their username, as an incident's `assignee` names them.
 */

/**
 * The form of a multipart import: the file in one part (named `file`, or the only part
 * with a file name).
 * @typedef {Object} OpmlUpload
 * @property {string} file An OPML file of at most 1 MiB.
 */

/**
 * The news reader's page envelope.
 * @typedef {Object} Page_Article
 * @property {Array<{author?: (string|null), id: string, imageUrl?: (string|null), link?: (string|null), paragraphs?: Array<string>, publishedAt: string, sourceId: string, sourceTitle: string, summary?: (string|null), title: string, topics: Array<TopicRef>}>} content
 * @property {string} [nextCursor] The `cursor` of the next page; absent on the last page.
 * @property {number} page This page's number, from 0.
 * @property {number} size The page size asked for.
 * @property {number} totalElements
 * @property {number} totalPages
 */

/**
 * An event of the PagerDuty Events API v2.
 * @typedef {Object} PagerDutyEvent
 * @property {(string|null)} [client]
 * @property {(string|null)} [client_url]
 * @property {(string|null)} [dedup_key] The incident's key: required to acknowledge or resolve; a trigger without one gets one, answered.
 * @property {string} event_action
 * @property {(Array<PagerDutyImage>|null)} [images]
 * @property {(Array<PagerDutyLink>|null)} [links]
 * @property {(PagerDutyPayload|null)} [payload]
 * @property {string} routing_key An ingest key of the platform (PagerDuty's integration key).
 */

/**
 * @typedef {Object} PagerDutyImage
 * @property {(string|null)} [alt]
 * @property {(string|null)} [href]
 * @property {string} src
 */

/**
 * @typedef {Object} PagerDutyLink
 * @property {string} href
 * @property {(string|null)} [text]
 */

/**
 * What a trigger says of the problem.
 * @typedef {Object} PagerDutyPayload
 * @property {(string|null)} [class]
 * @property {(string|null)} [component]
 * @property {(Object<string, unknown>|null)} [custom_details] Kept as JSON in the log's attributes.
 * @property {(string|null)} [group]
 * @property {string} severity critical is FATAL, error ERROR, warning WARN, info INFO.
 * @property {string} source
 * @property {string} summary The log's message and the incident's title.
 * @property {(string|null)} [timestamp] ISO 8601 (`+0000` offsets too), at most a day ahead; absent: when it was received.
 */

/**
 * PagerDuty's answer to an accepted event.
 * @typedef {Object} PagerDutyProcessed
 * @property {string} dedup_key
 * @property {string} message
 * @property {string} status
 */

/**
 * PagerDuty's answer to an event it refuses.
 * @typedef {Object} PagerDutyRefused
 * @property {Array<string>} errors
 * @property {string} message
 * @property {string} status
 */

/**
 * PagerDuty's answer over the limit.
 * @typedef {Object} PagerDutyThrottled
 * @property {string} message
 * @property {string} status
 */

/**
 * A password change as sent: the password now and the new one.
 * @typedef {Object} PasswordChangeRequest
 * @property {string} currentPassword The account's password now (403 when it is wrong).
 * @property {string} password The new password; every other session of the account ends.
 */

/**
 * A digest to persist (deprecated operation).
 * @typedef {Object} PersistRequest
 * @property {string} digestDate Not after tomorrow in the digest time zone, at most 3,650 days back.
 * @property {string} digestType `PERSONAL` or `PUBLIC`.
 * @property {(number|null)} [eventCount] Ignored: computed from the events.
 * @property {(Array<Event>|null)} events At most 50 events (what does not fit one DynamoDB item is cut from the end).
 * @property {(string|null)} [generatedAt]
 * @property {(string|null)} [model]
 * @property {(number|null)} [readTimeMinutes] Ignored: computed from the events.
 * @property {(number|null)} [sourceCount] Ignored: computed from the events.
 * @property {(string|null)} [subtitle]
 * @property {(string|null)} [summary]
 * @property {(string|null)} [targetUserId] Required for PERSONAL, null for PUBLIC.
 * @property {(string|null)} [title] Deprecated and ignored: the service builds the title.
 * @property {(Array<DigestTopicRef>|null)} [topics]
 */

/**
 * One recipe planned for a meal.
 * @typedef {Object} PlanEntry
 * @property {boolean} [deleted] The recipe was deleted since (it is left out of shopping lists).
 * @property {number} portions
 * @property {number} recipeId
 * @property {string} title The recipe's title when it was planned.
 */

/**
 * One recipe of a meal, as sent.
 * @typedef {Object} PlanEntryBody
 * @property {(number|null)} [portions] The portions to cook; the recipe's own when absent.
 * @property {number} recipeId
 */

/**
 * A meal of the day.
 * @typedef {("breakfast"|"lunch"|"dinner"|"snack")} PlanMeal
 */

/**
 * A day's meal and its recipes.
 * @typedef {Object} PlanSlot
 * @property {string} date
 * @property {Array<PlanEntry>} entries
 * @property {PlanMeal} meal
 * @property {string} updatedAt
 */

/**
 * A meal's recipes, as sent (`PUT` replaces them all).
 * @typedef {Object} PlanSlotBody
 * @property {Array<PlanEntryBody>} entries
 */

/**
 * A full post.
 * @typedef {Object} Post
 * @property {Author} author
 * @property {number} commentCount
 * @property {string} content The post's text as written: CommonMark (a post written before Markdown is plain lines, which read the same).
 * @property {string} [contentHtml] `content` rendered by the server into safe HTML (`community::markdown`): what the web client shows. On a single post's answers (read, create, replace, patch) only: a list leaves it out (20 posts at the bounds would pass Lambda's 6 MB answer) and shows `excerpt`, plain text.
 * @property {(string|null)} [coverImageUrl]
 * @property {string} createdAt
 * @property {number} dislikeCount
 * @property {string} excerpt
 * @property {string} id
 * @property {boolean} isBookmarkedByMe
 * @property {boolean} isDislikedByMe
 * @property {boolean} isLikedByMe
 * @property {number} likeCount
 * @property {number} readTimeMinutes
 * @property {number} saveCount
 * @property {Array<string>} sourceUrl
 * @property {string} status `DRAFT` or `PUBLISHED`.
 * @property {(string|null)} [summary] The AI summary of the content (null before the first; while PENDING, the previous).
 * @property {(string|null)} [summaryGeneratedAt]
 * @property {(string|null)} [summaryModel] The model that wrote the summary.
 * @property {(SummaryStatusName|null)} [summaryStatus]
 * @property {string} title
 * @property {Array<CommunityTopicRef>} topics
 * @property {string} updatedAt
 * @property {number} viewCount
 */

/**
 * A post without its body, for lists of cards.
 * @typedef {Object} PostCard
 * @property {Author} author
 * @property {number} commentCount
 * @property {string} createdAt
 * @property {string} excerpt
 * @property {string} id
 * @property {boolean} isLikedByMe
 * @property {number} likeCount
 * @property {number} readTimeMinutes
 * @property {string} title
 * @property {Array<CommunityTopicRef>} topics
 * @property {number} viewCount
 */

/**
 * One page of posts.
 * @typedef {Object} PostPage
 * @property {Array<Post>} content
 * @property {string} [nextCursor] The `cursor` of the next page; absent on the last page.
 * @property {number} page
 * @property {number} size
 * @property {number} totalElements
 * @property {number} totalPages
 */

/**
 * The fields of a post to change; absent ones are kept. `title`, `content` and `status` cannot
 * be removed, so they are not nullable (a JSON Merge Patch's null would remove them):
 * omit them to keep them.
 * @typedef {Object} PostPatchRequest
 * @property {string} [content] 1 to 50,000 characters, not blank; no control characters but line breaks and tabs; not null.
 * @property {(WebUrlText|null)} [coverImageUrl]
 * @property {(string|null)} [excerpt] At most 500 characters, no control characters but line breaks and tabs; null generates it from the content again.
 * @property {(Array<WebUrlText>|null)} [sourceUrl] Replaces the source links (null: none).
 * @property {PostStatusName} [status] `DRAFT` or `PUBLISHED`; no default; not null.
 * @property {string} [title] 5 to 100 characters once trimmed, without control characters; not null.
 * @property {(Array<TopicNameText>|null)} [topics] Replaces the post's topics (null: none).
 */

/**
 * The rendering of a preview.
 * @typedef {Object} PostPreview
 * @property {string} html The safe HTML a post with this content answers as `contentHtml`.
 */

/**
 * A reaction to a post; `NONE` takes it back.
 * @typedef {("LIKE"|"DISLIKE"|"NONE")} PostReactionName
 */

/**
 * A post to create, or the whole new state of one.
 * @typedef {Object} PostRequest
 * @property {string} content 1 to 50,000 characters, not blank; no control characters but line breaks and tabs.
 * @property {(WebUrlText|null)} [coverImageUrl]
 * @property {(string|null)} [excerpt] At most 500 characters, no control characters but line breaks and tabs; generated from the content when omitted.
 * @property {(Array<WebUrlText>|null)} [sourceUrl] At most 10 http(s) URIs.
 * @property {(PostStatusName|null)} [status]
 * @property {string} title 5 to 100 characters once trimmed, without control characters.
 * @property {(Array<TopicNameText>|null)} [topics] At most 10 topic names; unknown names are created.
 */

/**
 * Whether a post is visible to everyone.
 * @typedef {("DRAFT"|"PUBLISHED")} PostStatusName
 */

/**
 * A post's AI summary (the product's "Summary state").
 * @typedef {Object} PostSummary
 * @property {(string|null)} [generatedAt]
 * @property {(string|null)} [model] The model that wrote it.
 * @property {(SummaryStatusName|null)} [status]
 * @property {(string|null)} [summary] The summary; while PENDING, the previous one (null before the first).
 */

/**
 * A preference entry (diet, allergy): 1 to 100 characters, not blank.
 * @typedef {string} PreferenceTag
 */

/**
 * Where and how to upload the file, then confirm it.
 * @typedef {Object} PresignedUpload
 * @property {string} expiresAt When `uploadUrl` stops working (5 minutes after it was signed).
 * @property {UploadHeaders} headers
 * @property {string} id The upload's id: `POST /api/v1/uploads/images/{id}/confirm` once the file is sent.
 * @property {string} method The method of the upload.
 * @property {string} uploadUrl The storage URL to send the file to, signed for this one request until `expiresAt`.
 */

/**
 * An image about to be uploaded straight to storage.
 * @typedef {Object} PresignedUploadRequest
 * @property {ImageContentType} contentType The file's type; the upload must send exactly this `Content-Type` (what is stored is decided by the file's first bytes at confirm).
 * @property {number} size The file's size in bytes, 1 to 20 MiB; the upload must send exactly this `Content-Length`.
 */

/**
 * A post's text to preview.
 * @typedef {Object} PreviewRequest
 * @property {string} content The post's content as it would be saved: 1 to 50,000 characters of CommonMark, not blank; no control characters but line breaks and tabs.
 */

/**
 * A user's profile as the API shows it.
 * @typedef {Object} Profile
 * @property {string} createdAt
 * @property {(string|null)} [email] Absent on an account registered through the recipe service (until one is set).
 * @property {string} id The user id (the tokens' `sub`).
 * @property {(string|null)} [name]
 * @property {Array<Role>} roles `USER` for everyone, plus `OPERATOR` (the incident platform) and `ADMIN` (everything) where an administrator granted them.
 * @property {string} username
 */

/**
 * Profile changes as sent: absent fields are unchanged; `name: null` clears the name.
 * @typedef {Object} ProfileUpdate
 * @property {(string|null)} [email]
 * @property {(string|null)} [name] Display name (at most 100 characters); `null` or blank clears it.
 */

/**
 * A binary protobuf body, as the contract documents it.
 * @typedef {string} Protobuf
 */

/**
 * The provider configuration: the provider and model in use, the temperature, and which
 * providers could be chosen.
 * @typedef {Object} ProviderConfig
 * @property {Array<AvailableProvider>} availableProviders
 * @property {string} model The model they ask: the override's, else `LLM_MODEL`.
 * @property {ProviderKind} provider The provider the GenAI operations use now: the override, else `LLM_PROVIDER`.
 * @property {number} temperature `LLM_TEMPERATURE`.
 */

/**
 * One provider's readiness.
 * @typedef {Object} ProviderHealth
 * @property {boolean} configured Whether it can be called (the cloud provider needs `LLM_API_KEY`).
 * @property {string} model The model it is asked for.
 */

/**
 * Which provider answers: the values of `LLM_PROVIDER` and of the responses' `provider`.
 * @typedef {("cloud"|"local")} ProviderKind
 */

/**
 * A new provider choice for this deployment.
 * @typedef {Object} ProviderUpdate
 * @property {string} model 1 to 200 characters, trimmed; not blank.
 * @property {ProviderKind} provider `cloud` or `local`; the cloud provider only with a key configured. Read as text, so a wrong or missing value is the field's own 400.
 */

/**
 * The providers behind `mode`.
 * @typedef {Object} ProvidersHealth
 * @property {ProviderHealth} cloud
 * @property {(ProviderKind|null)} [default_mode]
 * @property {ProviderHealth} local
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
 * A runbook document of the retrieval corpus (its text lives in its chunks).
 * @typedef {Object} RagDocument
 * @property {number} bytes Its text's size in UTF-8 bytes (after redaction).
 * @property {number} chunks The chunks its text was split into.
 * @property {string} created_at
 * @property {string} created_by
 * @property {(string|null)} [embeddings_model] Whether its chunks carry embeddings (hybrid ranking), and of which model.
 * @property {string} id
 * @property {number} redactions Secrets replaced in its text before it was stored.
 * @property {RagDocumentStatus} status
 * @property {Array<string>} tags
 * @property {string} title
 */

/**
 * A runbook document.
 * @typedef {Object} RagDocumentRequest
 * @property {string} content The text (Markdown or plain), at most 204,800 bytes of UTF-8; split into chunks of about 1,200 characters, at most 400. Secrets are redacted before it is stored.
 * @property {(Array<string>|null)} [tags] At most 20 tags of 1 to 50 characters, without control characters (default none; repeats are kept once).
 * @property {string} title 1 to 200 characters.
 */

/**
 * Where a runbook document is in its life: written chunk by chunk (`INDEXING`), searchable
 * (`READY`), being removed (`DELETING`). Only READY documents are retrieved.
 * @typedef {("INDEXING"|"READY"|"DELETING")} RagDocumentStatus
 */

/**
 * One ranked chunk of a runbook.
 * @typedef {Object} RagSearchHit
 * @property {string} chunk
 * @property {number} chunk_index The chunk's position in its document (from 0).
 * @property {string} document_id
 * @property {number} score BM25, or the fused rank score when embeddings are configured; higher is better.
 * @property {string} title
 */

/**
 * A search of the runbooks.
 * @typedef {Object} RagSearchRequest
 * @property {string} query 1 to 1000 characters.
 * @property {(number|null)} [top_k] How many chunks, 1 to 20 (default 5).
 */

/**
 * A reaction to a post.
 * @typedef {Object} ReactionRequest
 * @property {PostReactionName} type `LIKE`, `DISLIKE`, or `NONE` to take a reaction back.
 */

/**
 * A post's reaction counts and the caller's own reaction.
 * @typedef {Object} ReactionResult
 * @property {number} dislikeCount
 * @property {boolean} isDislikedByMe
 * @property {boolean} isLikedByMe
 * @property {number} likeCount
 */

/**
 * An article with the person's state of it.
 * @typedef {(Article & {labels: Array<string>, read: boolean, starred: boolean, starredAt?: string})} ReaderArticle
 */

/**
 * What one call of [`forget_reader`] did.
 * @typedef {Object} ReaderForgotten
 * @property {number} deleted Items of the person's reading state deleted by this call.
 * @property {boolean} finished Nothing of it is left (else call again).
 */

/**
 * A person reading through one of their app passwords, for the next few minutes.
 * @typedef {Object} ReaderSession
 * @property {string} accessToken A user token of the person (role USER only, whatever roles the account holds), to send as `Authorization: Bearer` to the platform's routes; it ends with the account's sessions.
 * @property {number} expiresIn Seconds the token is valid for from now.
 * @property {string} userId
 * @property {string} username
 */

/**
 * The body of `POST /api/users/internal/reader-sessions`.
 * @typedef {Object} ReaderSessionRequest
 * @property {string} auth The `Auth` value `ClientLogin` answered, as the client sends it after `GoogleLogin auth=`.
 */

/**
 * One subscription as its person's reader sees it.
 * @typedef {Object} ReaderSubscription
 * @property {Array<string>} labels The person's labels (folders) on it, in the order they were given.
 * @property {string} [newestAt] When the source's newest article was published; absent when it has none.
 * @property {Source} source
 * @property {string} [subscribedAt] When the person subscribed (absent for subscriptions older than the reader).
 * @property {number} unread Articles of the source the person has not read (within the read horizon).
 */

/**
 * The reports' count by reason.
 * @typedef {Object} ReasonCounts
 * @property {number} abuse
 * @property {number} offTopic
 * @property {number} other
 * @property {number} spam
 */

/**
 * The reason error body (community).
 * @typedef {Object} ReasonErrorBody
 * @property {string} error The status's reason phrase.
 * @property {string} message
 * @property {number} status The HTTP status.
 * @property {string} timestamp ISO 8601 UTC.
 */

/**
 * A stored recipe.
 * @typedef {Object} Recipe
 * @property {(Array<RecipeAllergen>|null)} [allergens] The reader's allergies its ingredients name (empty: none); absent when the reader's preferences could not be read.
 * @property {string} createdAt
 * @property {(string|null)} [editedAt] The last update, if any.
 * @property {number} id
 * @property {(RecipeImage|null)} [image]
 * @property {Array<string>} [ingredientLines] Each ingredient written as one line by the service's one writer (`1/2 cup cream`, `a pinch of salt`, `salt to taste`), in `ingredients`' order: what a client shows and sends back as `{line}`.
 * @property {Array<RecipeIngredient>} ingredients
 * @property {Array<string>} instructions
 * @property {(RecipeNutrientsServed|null)} [nutrients]
 * @property {(NutrientsPerPortion|null)} [nutrientsPerPortion]
 * @property {(string|null)} [openedAt] The last time the recipe was read on its own (`GET /recipes/{recipeId}`).
 * @property {number} portions
 * @property {(number|null)} [scaledFrom] The portions the recipe is written for, when the answer was scaled to `portions` (`?portions=N`).
 * @property {(RecipeSource|null)} [source]
 * @property {Array<RecipeTag>} tags Lowercase; empty when none.
 * @property {(RecipeTimes|null)} [times]
 * @property {string} title
 */

/**
 * One of the reader's allergies and the ingredients that name it.
 * @typedef {Object} RecipeAllergen
 * @property {string} allergy The allergy as the reader's preferences write it.
 * @property {Array<string>} ingredients The ingredients' names, as written in the recipe.
 */

/**
 * The recipe service's Credentials, as sent.
 * @typedef {Object} RecipeCredentials
 * @property {string} password
 * @property {string} username Unique (case-insensitively) across the whole platform.
 */

/**
 * A recipe's photo: its storage key and a URL the browser can show for an hour at least (a
 * presigned GET, the same within the hour).
 * @typedef {Object} RecipeImage
 * @property {string} key
 * @property {string} url
 */

/**
 * Where to send the photo, then confirm it.
 * @typedef {Object} RecipeImageUpload
 * @property {string} expiresAt
 * @property {Object<string, string>} headers The headers to send exactly (the signature covers them): `Content-Type`, `Content-Length`.
 * @property {string} id Confirm with `POST /api/recipes/recipes/{recipeId}/image/{id}` once sent.
 * @property {string} method
 * @property {string} uploadUrl
 */

/**
 * A photo about to be uploaded.
 * @typedef {Object} RecipeImageUploadBody
 * @property {string} contentType The file's type; the upload must send exactly this `Content-Type` (what is stored is decided by the file's first bytes).
 * @property {number} size The file's size in bytes, 1 to 10 MiB; the upload must send exactly this `Content-Length`.
 */

/**
 * One ingredient: `1/2 cup cream` is `{quantity: 0.5, amount: "1/2", unit: "cup", name:
 * "cream"}`; `salt to taste` is `{unit: "", name: "salt", note: "to taste"}` (no quantity).
 * Recipes stored before quantities were optional (`{quantity, unit, name}`) read as they are.
 * @typedef {Object} RecipeIngredient
 * @property {(string|null)} [amount] The quantity exactly as written (`½`, `1 1/2`, `1-2`, `a`).
 * @property {string} name
 * @property {(string|null)} [note] What follows the name (`finely chopped`, `to taste`, `optional`).
 * @property {(number|null)} [quantity] The quantity as a number, for scaling and merging (a range's lower bound); absent when none was given (`salt to taste`). At most 100,000 as written; an answer scaled to `?portions` (up to 2,000 times) or a shopping list's sum can be more.
 * @property {(number|null)} [quantityMax] A range's upper bound (`1-2 cloves`: 2), bounded as `quantity`.
 * @property {string} unit The canonical unit: `g`, `kg`, `ml`, `l`, `cup`, `tbsp`, `tsp`, `oz`, `lb`, `clove`, `pinch`, ... or empty.
 */

/**
 * A valid recipe without its id and times.
 * @typedef {Object} RecipeInput
 * @property {Array<RecipeIngredient>} ingredients
 * @property {Array<InstructionStep>} instructions
 * @property {(RecipeNutrients|null)} [nutrients]
 * @property {number} portions
 * @property {(RecipeSource|null)} [source]
 * @property {Array<RecipeTag>} [tags] At most 20, each 1-50 characters, lowercase, inner spaces single.
 * @property {(RecipeTimes|null)} [times]
 * @property {string} title
 */

/**
 * A RecipeInput as sent.
 * @typedef {Object} RecipeInputBody
 * @property {Array<IngredientInput>} ingredients
 * @property {Array<InstructionStep>} instructions
 * @property {(RecipeNutrients|null)} [nutrients]
 * @property {number} portions
 * @property {(RecipeSource|null)} [source]
 * @property {(Array<RecipeTag>|null)} [tags] At most 20, each 1-50 characters; stored lowercase, duplicates dropped.
 * @property {(RecipeTimes|null)} [times]
 * @property {string} title
 */

/**
 * The language of the recipe service's UI and of generated recipes.
 * @typedef {("EN"|"DE"|"HU")} RecipeLanguage
 */

/**
 * Nutrients of the whole recipe (kcal and grams).
 * @typedef {Object} RecipeNutrients
 * @property {number} calories
 * @property {number} carbs
 * @property {number} fat
 * @property {number} protein
 */

/**
 * A recipe's nutrients as an answer gives them: the stored ones (each at most 10,000,000),
 * or up to 2,000 times that when scaled to `?portions`. The contract's shape only.
 * @typedef {Object} RecipeNutrientsServed
 * @property {number} calories
 * @property {number} carbs
 * @property {number} fat
 * @property {number} protein
 */

/**
 * A partial update: absent fields keep their value; `nutrients: null` clears them.
 * @typedef {Object} RecipePatchBody
 * @property {(Array<IngredientInput>|null)} [ingredients]
 * @property {(Array<InstructionStep>|null)} [instructions]
 * @property {(RecipeNutrients|null)} [nutrients]
 * @property {(number|null)} [portions]
 * @property {(RecipeSource|null)} [source]
 * @property {(Array<RecipeTag>|null)} [tags] The whole list (`[]` removes every tag).
 * @property {(RecipeTimes|null)} [times]
 * @property {(string|null)} [title]
 */

/**
 * Where a recipe came from.
 * @typedef {Object} RecipeSource
 * @property {(string|null)} [imageUrl] The page's image of the recipe.
 * @property {(ImportedBy|null)} [importedBy]
 * @property {(string|null)} [name] The publisher or author the page names.
 * @property {string} url The page (http or https).
 */

/**
 * A tag: 1 to 50 characters, stored lowercase with single inner spaces.
 * @typedef {string} RecipeTag
 */

/**
 * The recipe UI's theme.
 * @typedef {("LIGHT"|"DARK")} RecipeTheme
 */

/**
 * A recipe's times, in minutes.
 * @typedef {Object} RecipeTimes
 * @property {(number|null)} [cookMinutes]
 * @property {(number|null)} [prepMinutes]
 * @property {(number|null)} [totalMinutes]
 */

/**
 * The recipe service's view of the signed-in user.
 * @typedef {Object} RecipeUser
 * @property {UserPreferences} preferences
 * @property {string} username
 */

/**
 * Update user (recipe service): every field optional, each under the Credentials rules.
 * @typedef {Object} RecipeUserUpdate
 * @property {(string|null)} [currentPassword] The password now: required with `password` (403 when it is wrong).
 * @property {(string|null)} [password] A new password; needs `currentPassword`. Every other session of the account ends.
 * @property {(UserPreferencesUpdate|null)} [preferences]
 * @property {(string|null)} [username] A new username, unique across the platform.
 */

/**
 * What a reference points at.
 * @typedef {("runbook"|"analysis")} ReferenceKind
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
 * The open reports on one post or comment.
 * @typedef {Object} ReportGroup
 * @property {string} authorId Whose content it is.
 * @property {number} count Open reports on it.
 * @property {string} excerpt The post's title or the start of the comment, when the first report came.
 * @property {string} latestAt When its latest report came.
 * @property {string} [latestText] The latest words a reporter gave, if any gave some.
 * @property {string} openedAt When its first open report came.
 * @property {string} postId The post, or the comment's post.
 * @property {ReasonCounts} reasons
 * @property {string} targetId
 * @property {ReportTarget} targetType
 */

/**
 * How an admin resolved the reports on a post or comment.
 * @typedef {("removed"|"dismissed")} ReportOutcome
 */

/**
 * A page of the admins' queue, newest first.
 * @typedef {Object} ReportQueuePage
 * @property {Array<ReportGroup>} content
 * @property {string} [nextCursor] The `cursor` of the next page; absent on the last page.
 */

/**
 * Why a member reports something.
 * @typedef {("spam"|"abuse"|"off-topic"|"other")} ReportReason
 */

/**
 * A report of a post or a comment.
 * @typedef {Object} ReportRequest
 * @property {ReportReason} reason
 * @property {string} targetId The post's or the comment's id.
 * @property {ReportTarget} targetType
 * @property {(string|null)} [text] What the reporter adds: at most 500 characters, line breaks allowed, no other control characters (blank: none).
 */

/**
 * A resolved group of reports.
 * @typedef {Object} ReportResolution
 * @property {ReportOutcome} outcome
 * @property {number} reports The reports closed (each reporter is notified).
 * @property {string} targetId
 * @property {ReportTarget} targetType
 */

/**
 * What a report is about.
 * @typedef {("post"|"comment")} ReportTarget
 */

/**
 * What an admin does with a target's reports.
 * @typedef {("remove"|"dismiss")} ResolveActionName
 */

/**
 * An admin's resolution of a target's reports.
 * @typedef {Object} ResolveRequest
 * @property {ResolveActionName} action `remove`: the admin removal of the content (logged with `note`, or else the reports' most given reason); `dismiss`: the content stays.
 * @property {(string|null)} [note] Told to the reporters, and a removal's reason: one line, at most 500 characters.
 */

/**
 * @typedef {("USER"|"OPERATOR"|"ADMIN")} Role
 */

/**
 * The roles an administrator gives an account, as sent.
 * @typedef {Object} RoleChangeRequest
 * @property {Array<Role>} roles The account's roles: `USER` is always kept; `OPERATOR` opens the incident platform, `ADMIN` everything.
 */

/**
 * `google.rpc.Status` in JSON.
 * @typedef {Object} RpcStatus
 * @property {number} code The gRPC code (3 invalid argument, 7 permission denied, 8 resource exhausted, 14 unavailable, 16 unauthenticated).
 * @property {Array<unknown>} [details] For a 400, a `google.rpc.BadRequest` (`@type`, `fieldViolations`).
 * @property {string} message
 */

/**
 * An alert rule, created or replaced.
 * @typedef {Object} RuleRequest
 * @property {(boolean|null)} [enabled] Default true.
 * @property {(number|null)} [escalateAfterMinutes] Minutes an incident it opens or reopens may stay unacknowledged before it escalates to each notified channel's `escalateTo` (overrides the channel's delay), 1 to 1440.
 * @property {string} name 1 to 100 characters.
 * @property {(string|null)} [serviceName] Only this service's logs.
 * @property {Array<Severity>} severities The severities it counts (1 to 6).
 * @property {number} threshold Matching logs of one fingerprint that raise the alert, 1 to 1000.
 * @property {(string|null)} [type] Only logs of this type.
 * @property {number} windowSeconds The window they must fall in, 1 to 86400 seconds.
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
 * Reader preferences (news reader settings, plus the community's visibility flags).
 * @typedef {Object} Settings
 * @property {Array<string>} enabledSourceIds The sources the user is subscribed to (kept in step by subscribe and unsubscribe).
 * @property {Array<string>} followedTopics Topic ids the user follows.
 * @property {string} language A language tag such as `en` or `pt-BR`.
 * @property {boolean} showBookmarks Whether others see the user's bookmarks on their community profile; false until the user turns it on (the owner always sees their own).
 * @property {boolean} showLikes Whether others see the user's likes on their community profile; false until the user turns it on (the owner always sees their own).
 * @property {SummaryLength} summaryLength The default length of AI summaries.
 * @property {Theme} theme
 */

/**
 * A settings update: absent fields keep their current value.
 * @typedef {Object} SettingsUpdate
 * @property {(Array<SourceIdEntry>|null)} [enabledSourceIds] At most 500 ids, each not blank and at most 100 characters.
 * @property {(Array<TopicIdEntry>|null)} [followedTopics] At most 100 topics, each at most 50 characters with a letter or digit (any script); kept as their slugs ("Public Transport" is `public-transport`, "C#" `c-sharp`), one per slug.
 * @property {(string|null)} [language] A language tag such as `en` or `pt-BR`.
 * @property {(boolean|null)} [showBookmarks] Show the user's bookmarks to others on their community profile (false until set).
 * @property {(boolean|null)} [showLikes] Show the user's likes to others on their community profile (false until set).
 * @property {(SummaryLength|null)} [summaryLength]
 * @property {(Theme|null)} [theme]
 */

/**
 * A log's severity, lowest first.
 * @typedef {("TRACE"|"DEBUG"|"INFO"|"WARN"|"ERROR"|"FATAL")} Severity
 */

/**
 * One line of the list.
 * @typedef {Object} ShoppingItem
 * @property {(string|null)} [amount] The quantity written for a cook (`1 ½`, `750`).
 * @property {boolean} checked
 * @property {boolean} extra Added by hand (kept when the list is built again), not from a recipe.
 * @property {string} id The item's id in the list (8 hex digits).
 * @property {string} name
 * @property {(number|null)} [quantity] The merged quantity in `unit`; absent for lines without one (`salt to taste`).
 * @property {Array<number>} [recipes] The recipes it comes from (ids).
 * @property {string} unit
 */

/**
 * The shopping list as stored.
 * @typedef {Object} ShoppingList
 * @property {(string|null)} [builtAt]
 * @property {(string|null)} [from] What the built items came from: a plan's date range...
 * @property {Array<ShoppingItem>} items
 * @property {Array<number>} [recipes] ...or chosen recipes (ids).
 * @property {(string|null)} [to]
 * @property {(string|null)} [updatedAt]
 */

/**
 * What to build the list from: a plan's days, or chosen recipes (exactly one of the two).
 * @typedef {Object} ShoppingListBuildBody
 * @property {(string|null)} [from] The first planned day.
 * @property {(Array<PlanEntryBody>|null)} [recipes] Recipes and the portions to buy for (their own when absent), 1 to 50.
 * @property {(string|null)} [to] The last planned day (at most 61 days after `from`).
 */

/**
 * An item's check.
 * @typedef {Object} ShoppingListCheckBody
 * @property {boolean} checked
 */

/**
 * An item added by hand.
 * @typedef {Object} ShoppingListItemBody
 * @property {string} name
 * @property {(number|null)} [quantity]
 * @property {(string|null)} [unit]
 */

/**
 * A silence as the API shows it.
 * @typedef {Object} Silence
 * @property {string} comment
 * @property {string} createdAt
 * @property {string} createdBy The operator who created it.
 * @property {string} endsAt
 * @property {(string|null)} [expiredBy] The operator who expired it by hand (`DELETE`), if one did.
 * @property {string} id
 * @property {Matchers} matchers
 * @property {string} startsAt
 * @property {SilenceState} state Its state when it was read.
 */

/**
 * The body of `POST /api/v1/silences` (documentation; parsed by [`parse_silence`]).
 * @typedef {Object} SilenceRequest
 * @property {string} comment Why (shown with the silence): "DB migration, CHG-1234".
 * @property {(number|null)} [durationMinutes] How long from `startsAt` it lasts; exactly one of `endsAt` and `durationMinutes`.
 * @property {(string|null)} [endsAt] When it ends (RFC 3339): after `startsAt` and now, at most 7 days after `startsAt`. Exactly one of `endsAt` and `durationMinutes`.
 * @property {MatchersRequest} matchers
 * @property {(string|null)} [startsAt] When it starts (RFC 3339); absent: now. Later than now: the silence is `pending` until then (at most 365 days ahead).
 */

/**
 * Where a silence stands at a time.
 * @typedef {("pending"|"active"|"expired")} SilenceState
 */

/**
 * A shared RSS/Atom/JSON feed source (one per normalised URL).
 * @typedef {Object} Source
 * @property {string} createdAt
 * @property {(string|null)} [description]
 * @property {FullTextMode} fullText Whether new articles get the text of their page (`auto`: when the feed's entry is short).
 * @property {string} id
 * @property {(string|null)} [lastFetchedAt] When the feed was last fetched.
 * @property {(string|null)} [siteUrl] The website the feed belongs to.
 * @property {number} subscriberCount How many users are subscribed; the last one leaving deletes the source.
 * @property {string} title
 * @property {string} url The feed's URL.
 */

/**
 * One source's unread count.
 * @typedef {Object} SourceCount
 * @property {string} [newestAt]
 * @property {string} sourceId
 * @property {number} unread
 */

/**
 * One entry of `enabledSourceIds` (the schema of the list's items).
 * @typedef {string} SourceIdEntry
 */

/**
 * A source's settings.
 * @typedef {Object} SourceSettings
 * @property {FullTextMode} fullText Whether new articles get the text of their page: `on`, `off`, or `auto` (when the feed's entry is short, an excerpt).
 */

/**
 * A feed to add.
 * @typedef {Object} SourceSubmission
 * @property {string} url An http(s) URL serving an RSS, Atom or JSON Feed document, or a site's page that links to one (at most 2048 characters).
 */

/**
 * A recipe with its nutrients just stored, and where they came from.
 * @typedef {Object} StoredRecipeNutrients
 * @property {ComputedNutrients} computed
 * @property {Recipe} recipe
 */

/**
 * A page of the stream, and where the next one starts.
 * @typedef {Object} StreamPage
 * @property {Array<ReaderArticle>} items
 * @property {string} [nextCursor] The `cursor` of the next page; absent on the last one.
 */

/**
 * An ingredient by its parts. `quantityMax` below `quantity` is read as the range the other
 * way round; `quantityMax` alone as the quantity.
 * @typedef {Object} StructuredIngredient
 * @property {(string|null)} [amount]
 * @property {string} name
 * @property {(string|null)} [note]
 * @property {(number|null)} [quantity]
 * @property {(number|null)} [quantityMax]
 * @property {(string|null)} [unit] Empty or absent when none.
 */

/**
 * A page of subscriptions.
 * @typedef {Object} SubscriptionPage
 * @property {Array<ReaderSubscription>} items
 * @property {string} [nextCursor] The `cursor` of the next page; absent on the last.
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
 * The states of a summary.
 * @typedef {("PENDING"|"COMPLETED"|"FAILED")} SummaryStatusName
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
 * A category of the catalog with its topics.
 * @typedef {Object} TopicCategory
 * @property {string} id
 * @property {string} label
 * @property {number} sortOrder
 * @property {Array<CommunityTopic>} topics
 */

/**
 * One entry of `followedTopics` (the schema of the list's items): a topic's slug, or a
 * name that becomes one; it needs a letter or digit of any script, which the pattern
 * approximates as a character that is neither whitespace nor ASCII punctuation.
 * @typedef {string} TopicIdEntry
 */

/**
 * A topic name: at most 50 characters, trimmed, holding a letter, mark or digit of any script
 * (its slug) and no control characters (`community::input::TopicName`).
 * @typedef {string} TopicNameText
 */

/**
 * A topic an article belongs to.
 * @typedef {Object} TopicRef
 * @property {string} id The topic's slug, e.g. `open-source`.
 * @property {string} name As the feed spelt it, e.g. `Open Source`.
 */

/**
 * A topic suggested as a writer types its name.
 * @typedef {Object} TopicSuggestion
 * @property {string} id
 * @property {string} name The topic's name as shown.
 * @property {number} postCount Published live posts carrying it.
 * @property {string} slug
 */

/**
 * A topic with how many articles it has.
 * @typedef {Object} TopicSummary
 * @property {number} articleCount
 * @property {string} id
 * @property {string} name
 */

/**
 * The unread count after marking.
 * @typedef {Object} UnreadCount
 * @property {number} unreadCount Unread notifications, counted up to 1,000.
 */

/**
 * A person's unread counts: per source, per label, and in all.
 * @typedef {Object} UnreadCounts
 * @property {Array<LabelSummary>} labels
 * @property {string} [newestAt]
 * @property {Array<SourceCount>} sources
 * @property {number} total
 */

/**
 * What an unsubscribe left: when the source survives, every Source field too; when the last subscriber left, only these three, with deleted true.
 * @typedef {Object} Unsubscribed
 * @property {boolean} deleted The last subscriber left: the source and its articles are gone from every read (their rows are removed in the background).
 * @property {string} id
 * @property {number} subscriberCount
 */

/**
 * The headers the upload must send, exactly as given: the signature covers them.
 * @typedef {Object} UploadHeaders
 * @property {string} Content-Length The file's size in bytes, as declared.
 * @property {ImageContentType} Content-Type
 */

/**
 * A stored image.
 * @typedef {Object} UploadedImage
 * @property {string} url Where the image is served, publicly: `images/{uuid}.{png|jpg|gif|webp}` under the uploads CDN (`UPLOADS_PUBLIC_BASE_URL`) or the bucket.
 */

/**
 * The recipe service's UserPreferences, as stored and shown.
 * @typedef {Object} UserPreferences
 * @property {Array<string>} [aboutMe]
 * @property {Array<string>} [allergies] Ingredients the user must not get; a generated recipe naming one is never returned.
 * @property {Array<string>} [diet] Diets the user follows (`vegetarian`, `vegan`, ...); generation honours them.
 * @property {RecipeLanguage} [language]
 * @property {RecipeTheme} [theme]
 */

/**
 * Preference changes as sent: each absent field keeps its value.
 * @typedef {Object} UserPreferencesUpdate
 * @property {(Array<AboutMeEntry>|null)} [aboutMe]
 * @property {(Array<PreferenceTag>|null)} [allergies]
 * @property {(Array<PreferenceTag>|null)} [diet]
 * @property {(RecipeLanguage|null)} [language]
 * @property {(RecipeTheme|null)} [theme]
 */

/**
 * The recipe service's Message after an update; a password change also carries the token of this
 * session (every other one has ended).
 * @typedef {Object} UserUpdated
 * @property {string} message
 * @property {(string|null)} [token] Present when the password changed: the token to use from now on.
 */

/**
 * An absolute http or https URI of at most 2,048 characters, without whitespace or control
 * characters, with a host (a name or an IPv4 address; no brackets in the authority)
 * (`community::input::WebUrl`).
 * @typedef {string} WebUrlText
 */
