package oracle

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// scenario is one write sent to an oracle and to claimbridge.
type scenario struct {
	Name   string                 `json:"name"`
	Op     string                 `json:"op"` // create, update or status
	Object map[string]interface{} `json:"object"`
	Old    map[string]interface{} `json:"old,omitempty"`
}

// answer is an oracle's verdict (hack/oracle/k8s-1.31/oracle.go).
type answer struct {
	Name   string            `json:"name"`
	Errors []fieldError      `json:"errors"`
	Error  string            `json:"error"`
	Facts  map[string]string `json:"facts"`
}

type fieldError struct {
	Type   string `json:"type"`
	Field  string `json:"field"`
	Detail string `json:"detail"`
}

// releaseOf maps each shape to the release whose oracle judges it.
var releaseOf = map[string]string{
	"v1alpha1": "1.26",
	"v1alpha2": "1.30",
	"v1alpha3": "1.31",
}

// oracleDir is bin/oracle of the repository (built by hack/oracle-assets.sh,
// `make oracle-assets`), or $CLAIMBRIDGE_ORACLE_DIR.
func oracleDir() string {
	if d := os.Getenv("CLAIMBRIDGE_ORACLE_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "bin", "oracle")
}

// runOracle sends the scenarios to the oracle of release ("1.31") and
// returns its answers in order. A missing oracle fails the test.
func runOracle(t *testing.T, release string, scenarios []scenario) []answer {
	t.Helper()
	bin := filepath.Join(oracleDir(), "k8s-"+release)
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("oracle of Kubernetes %s missing (%v): run `make oracle-assets` (hack/oracle-assets.sh)", release, err)
	}
	in, err := json.Marshal(scenarios)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("oracle %s: %v\n%s", release, err, stderr.String())
	}
	var answers []answer
	if err := json.Unmarshal(stdout.Bytes(), &answers); err != nil {
		t.Fatalf("oracle %s: %v", release, err)
	}
	if len(answers) != len(scenarios) {
		t.Fatalf("oracle %s: %d answers for %d scenarios", release, len(answers), len(scenarios))
	}
	for i, a := range answers {
		if a.Name != scenarios[i].Name {
			t.Fatalf("oracle %s: answer %d is for %q, want %q", release, i, a.Name, scenarios[i].Name)
		}
	}
	return answers
}
