package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/gamesolver/gamesolver/service"
)

// decodeJSON reads the body into dst strictly: one JSON object, no unknown
// field, every field of the right type, nothing after it. On failure it
// answers with a problem naming the field and what was expected, and
// returns false.
func decodeJSON(c *gin.Context, dst any) bool {
	err := service.DecodeStrict(c.Request.Body, dst)
	if err == nil {
		return true
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		closeUnread(c)
		writeProblem(c, newProblem(c, "body-too-large", fmt.Sprintf("the request body exceeds %d bytes", tooLarge.Limit)))
		return false
	}
	if errors.Is(err, service.ErrBodyTimeout) {
		closeUnread(c) // the rest of the body may still arrive
		writeProblem(c, newProblem(c, "request-timeout", err.Error()))
		return false
	}
	var fe *service.DecodeFieldError
	if errors.As(err, &fe) {
		msg := fe.Msg
		if strings.HasPrefix(fe.Field, "request.") {
			// a job's request: named as service.DecodeRequest names its faults
			msg = clip(fe.Field) + ": " + msg
		}
		fail(c, fe.Invalid(fe.Field, msg))
		return false
	}
	writeProblem(c, newProblem(c, "malformed-json", err.Error()))
	return false
}

// jsonRender writes v as JSON without HTML escaping (board pictures use
// characters such as '<' in no case, but notes may).
func jsonRender(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
