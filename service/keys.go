package service

import "github.com/gamesolver/gamesolver/service/cache"

// engineVersion changes whenever an engine's answers may change; it is part
// of every cache key, so a new engine never reads an old one's answers.
var engineVersion = map[string]string{
	"tiling":    "t1",
	"polyomino": "p1",
}

func cacheKey(game, variant, position string) string {
	return cache.Key(game, engineVersion[game], variant, position)
}
