package api

import (
	"net/http"

	"github.com/gin-gonic/gin"
	swaggerFiles "github.com/swaggo/files"
	ginSwagger "github.com/swaggo/gin-swagger"

	"github.com/gamesolver/gamesolver/openapi"
)

func registerDocs(r *gin.Engine) {
	r.GET("/openapi.json", openapiJSON)
	ui := ginSwagger.WrapHandler(swaggerFiles.Handler, ginSwagger.URL("/openapi.json"))
	r.GET("/swagger/*any", func(c *gin.Context) {
		switch c.Param("any") {
		case "/": // the directory itself: its page
			c.Redirect(http.StatusMovedPermanently, "/swagger/index.html")
		case "/doc.json":
			// gin-swagger would serve swag's template (docs.go), with an
			// empty host and schemes and without the request examples:
			// the one document everywhere.
			openapiJSON(c)
		default:
			ui(c)
		}
	})
	r.GET("/swagger", func(c *gin.Context) { c.Redirect(http.StatusMovedPermanently, "/swagger/index.html") })
}

// openapiJSON godoc
//
//	@Summary		The OpenAPI document
//	@Description	The generated OpenAPI (Swagger 2.0) document describing every endpoint; browse it at /swagger/index.html.
//	@Tags			service
//	@Produce		json
//	@Success		200	{object}	object
//	@Router			/openapi.json [get]
func openapiJSON(c *gin.Context) {
	c.Data(http.StatusOK, "application/json", openapi.JSON)
}
