package api

import (
	"compress/gzip"
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
)

// Answers of at least compressMinSize bytes go out gzip-compressed to a
// client that accepts it (Accept-Encoding: gzip), at compressLevel: the
// big answers (a Teeko annotation of 2.5 MB, every move of a 16 x 16
// hexomino board, a tiling job's list) are JSON of few distinct words and
// shrink about tenfold; below 2 KiB the saving is not worth a compressor.
// Event streams are sent as they are (each event flushed on its own).
const (
	compressMinSize = 2 << 10
	compressLevel   = gzip.BestSpeed
)

// etagGzip is the suffix of a compressed answer's ETag: another
// representation, so another tag (RFC 9110, 8.8.3), which If-None-Match
// takes as the answer's own (noneMatch).
const etagGzip = "-gzip"

// Compress wraps h (the whole API: answers, problems, documents) so that
// its answers are compressed as compressMinSize says. Every answer then
// carries Vary: Accept-Encoding.
func Compress(h http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(
		gzhttp.MinSize(compressMinSize),
		gzhttp.CompressionLevel(compressLevel),
		gzhttp.EnableZstd(false),
		gzhttp.ExceptContentTypes([]string{"text/event-stream"}),
		gzhttp.SuffixETag(etagGzip),
	)
	if err != nil {
		panic("api: the compression's options: " + err.Error()) // constant options: a bug
	}
	return wrap(h)
}

// etagBase is tag without the suffix compression gave it.
func etagBase(tag string) string {
	if strings.HasSuffix(tag, etagGzip+`"`) {
		return strings.TrimSuffix(tag, etagGzip+`"`) + `"`
	}
	return tag
}
