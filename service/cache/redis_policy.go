package cache

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// MemoryPolicyWarning reads the Redis server's maxmemory and eviction
// policy (CONFIG GET; "" when it cannot: a managed Redis may refuse
// CONFIG) and says what is wrong for this service, "" when nothing is:
// the cached answers carry a TTL and the jobs and rate limits do not, so
// the policy must evict among keys with a TTL only (volatile-*), under a
// limit. Without a limit the cache grows for its whole TTL; with
// noeviction (Redis's default) a full Redis refuses every write, jobs'
// included; an allkeys-* policy evicts jobs (they then answer 404).
func MemoryPolicyWarning(ctx context.Context, client *redis.Client) string {
	cfg, err := client.ConfigGet(ctx, "maxmemory*").Result()
	if err != nil {
		return ""
	}
	limit, policy := cfg["maxmemory"], cfg["maxmemory-policy"]
	switch {
	case policy == "" && limit == "":
		return ""
	case strings.HasPrefix(policy, "allkeys-"):
		return fmt.Sprintf("Redis evicts any key (maxmemory-policy %s): jobs and their queue may be evicted; use volatile-lru (deploy/README.md)", policy)
	case policy == "noeviction" && limit != "0":
		return "Redis evicts nothing (maxmemory-policy noeviction): once full it refuses every write, jobs' included, until cached answers expire; use volatile-lru (deploy/README.md)"
	case limit == "0":
		return fmt.Sprintf("Redis has no memory limit (maxmemory 0, policy %s): cached answers grow for their whole TTL; set maxmemory with volatile-lru (deploy/README.md)", policy)
	}
	return ""
}
