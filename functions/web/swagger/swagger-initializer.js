// Swagger UI for the platform's one contract, served by the web function itself.
window.addEventListener("load", () => {
  window.ui = SwaggerUIBundle({
    url: "/v3/api-docs",
    dom_id: "#swagger-ui",
    deepLinking: true,
    layout: "BaseLayout",
    presets: [SwaggerUIBundle.presets.apis],
    // The default validator is an outside service: the page must work offline.
    validatorUrl: null,
    tryItOutEnabled: false,
    displayOperationId: true,
    defaultModelsExpandDepth: 0,
  });
});
