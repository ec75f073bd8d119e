# The deploy build. `sam build` runs `make build-<LogicalId>` for each function of
# template.yaml (`BuildMethod: makefile`, in the source tree: samconfig.toml `build_in_source`).
# Whichever target runs first builds every bootstrap in one `cargo lambda build --release
# --arm64` (features unified once, the shared crates compiled once, links side by side); the
# later ones find them built (cargo checks, in seconds), and each copies its own bootstrap.
# The profile is Cargo.toml's `[profile.release]`, as with a build per function.
#
#   sam build                 through SAM, as above
#   make bootstraps           the same build alone (arm64 bootstraps under $(LAMBDA_DIR))

CARGO_TARGET_DIR ?= $(CURDIR)/target
export CARGO_TARGET_DIR
LAMBDA_DIR := $(CARGO_TARGET_DIR)/lambda-sam/arm64

# Each function's binary, as its Metadata.BuildProperties.Binary in template.yaml names it
# (local/tests/operations/ checks that the two agree).
BINARY_IdentityFunction := identity
BINARY_NewsFunction := news
BINARY_NewsIntakeFunction := news-intake
BINARY_NewsFeedSchedulerFunction := news-feed-scheduler
BINARY_NewsFeedWorkerFunction := news-feed-worker
BINARY_NewsPageReaderFunction := news-page-reader
BINARY_NewsOpmlWorkerFunction := news-opml-worker
BINARY_NewsSourceSweeperFunction := news-source-sweeper
BINARY_GreaderFunction := news-greader
BINARY_AssistantFunction := assistant
BINARY_CommunityFunction := community
BINARY_CommunityUploadsFunction := community-uploads
BINARY_WebFunction := web
BINARY_CommunityIndexerFunction := community-indexer
BINARY_CommunityViewsFunction := community-views
BINARY_CommunityIndexSchedulerFunction := community-index-scheduler
BINARY_CommunitySweeperFunction := community-sweeper
BINARY_CommunitySummarizerFunction := community-summarizer
BINARY_CommunityDigestsFunction := community-digests
BINARY_CommunityDigestWorkerFunction := community-digest-worker
BINARY_CommunityDigestSchedulerFunction := community-digest-scheduler
BINARY_IncidentsIngestFunction := incidents-ingest
BINARY_IncidentsFunction := incidents
BINARY_IncidentsProcessorFunction := incidents-processor
BINARY_IncidentsMetricsFunction := incidents-metrics
BINARY_IdentityBootstrapFunction := identity-bootstrap
BINARY_RecipesFunction := recipes
BINARY_RecipesSweeperFunction := recipes-sweeper
BINARY_IncidentsIntelligenceFunction := incidents-intelligence
BINARY_IncidentsIntelligenceSweeperFunction := incidents-intelligence-sweeper
BINARY_IncidentsNotifierFunction := incidents-notifier
BINARY_IncidentsSweeperFunction := incidents-sweeper

BINARIES := $(sort $(foreach v,$(filter BINARY_%,$(.VARIABLES)),$($(v))))

.PHONY: bootstraps
bootstraps:
	cargo lambda build --release --arm64 --lambda-dir $(LAMBDA_DIR) $(addprefix --bin ,$(BINARIES))

build-%: bootstraps
	@test -n "$(BINARY_$*)" || { echo "Makefile: no BINARY_$* for template.yaml's $*" >&2; exit 1; }
	cp $(LAMBDA_DIR)/$(BINARY_$*)/bootstrap $(ARTIFACTS_DIR)/bootstrap
