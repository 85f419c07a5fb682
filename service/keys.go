package service

import "github.com/gamesolver/gamesolver/service/cache"

// engineVersion changes whenever an engine's answers may change; it is part
// of every cache key, so a new engine never reads an old one's answers.
var engineVersion = map[string]string{
	"tiling":    "t3", // t3: pieces keyed by order and name (2026-11-27: t2 keys mixed up hexomino lists and orders); t2: the region's own symmetries (2026-11-24)
	"polyomino": "p3", // p3: plies, the game's length (2026-11-24); p2: symmetries of blocked and covered cells together, shallow hand search
	"capture":   "c1", // c1: the first versioned keys (2026-11-28; before, "gs:capture::...")
}

func cacheKey(game, variant, position string) string {
	return cache.Key(game, engineVersion[game], variant, position)
}
