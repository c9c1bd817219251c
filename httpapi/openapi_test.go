package httpapi_test

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.yaml.in/yaml/v3"

	"github.com/ndrmilter/ndrmilter/httpapi"
)

// docs/openapi.yaml names every route the server answers, and the server
// answers every route it names.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string                               `yaml:"openapi"`
		Paths   map[string]map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("docs/openapi.yaml: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Errorf("docs/openapi.yaml: openapi %q, want 3.x", doc.OpenAPI)
	}
	var described []string
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if method == "parameters" {
				continue
			}
			described = append(described, strings.ToUpper(method)+" "+path)
			if _, ok := op["responses"]; !ok {
				t.Errorf("docs/openapi.yaml: %s %s has no responses", method, path)
			}
		}
	}
	sort.Strings(described)
	s := httpapi.New(httpapi.Config{Metrics: prometheus.NewRegistry()})
	served := s.Routes()
	for _, r := range served {
		if !slices.Contains(described, r) {
			t.Errorf("%s is served but not in docs/openapi.yaml", r)
		}
	}
	for _, r := range described {
		if !slices.Contains(served, r) {
			t.Errorf("%s is in docs/openapi.yaml but not served", r)
		}
	}
	if len(served) < 8 {
		t.Errorf("only %d routes served: %v", len(served), served)
	}
}
