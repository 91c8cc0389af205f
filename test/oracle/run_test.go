package oracle

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/claimbridge/claimbridge/test/recorded"
)

// scenario is one write sent to an oracle and to claimbridge.
type scenario struct {
	Name   string                 `json:"name"`
	Op     string                 `json:"op"` // create, update or status
	Object map[string]interface{} `json:"object"`
	Old    map[string]interface{} `json:"old,omitempty"`
	// Gates are the feature gates the release runs with, when not its
	// defaults (the 1.38 oracle's --feature-gates).
	Gates string `json:"gates,omitempty"`
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
	// Message is what kube-apiserver prints of the error (the 1.38 oracle's).
	Message string `json:"message,omitempty"`
}

// releaseOf maps each shape to the release whose oracle judges it.
var releaseOf = map[string]string{
	"v1alpha1": "1.26",
	"v1alpha2": "1.30",
	"v1alpha3": "1.31",
}

// The oracles' answers are recorded in testdata/oracle-<release>.jsonl.gz
// (package recorded): `make record` builds the oracles (hack/oracle-assets.sh)
// and asks them anew; otherwise a scenario never recorded fails its test.
var (
	booksMu sync.Mutex
	books   = map[string]*recorded.Book{}
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	booksMu.Lock()
	defer booksMu.Unlock()
	for release, b := range books {
		if err := b.Close(code == 0 && recorded.Complete()); err != nil {
			fmt.Fprintf(os.Stderr, "oracle %s: %v\n", release, err)
			code = 1
		}
	}
	os.Exit(code)
}

// book opens the recorded answers of the oracle of release once.
func book(t *testing.T, release string) *recorded.Book {
	t.Helper()
	booksMu.Lock()
	defer booksMu.Unlock()
	if b := books[release]; b != nil {
		return b
	}
	pinned, err := recorded.Pinned(filepath.Join("..", "..", "hack", "oracle", "k8s-"+release, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := recorded.Open(filepath.Join("testdata", "oracle-"+release+".jsonl.gz"), release, pinned)
	if err != nil {
		t.Fatal(err)
	}
	books[release] = b
	return b
}

// runOracle returns the answers of the oracle of release ("1.31") to the
// scenarios, in order: recorded, or under `make record` asked of the
// oracle in $CLAIMBRIDGE_ORACLE_DIR (hack/oracle-assets.sh --print-dir).
func runOracle(t *testing.T, release string, scenarios []scenario) []answer {
	t.Helper()
	b := book(t, release)
	var live []answer
	answers := make([]answer, len(scenarios))
	for i, s := range scenarios {
		question, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		err = b.Ask(question, "scenario "+s.Name, &answers[i], func() (any, error) {
			if live == nil {
				live = askOracle(t, release, scenarios)
			}
			return live[i], nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return answers
}

// askOracle sends the scenarios to the oracle of release and returns its
// answers in order, asking once for each set of gates. A missing oracle
// fails the test.
func askOracle(t *testing.T, release string, scenarios []scenario) []answer {
	t.Helper()
	answers := make([]answer, len(scenarios))
	groups := map[string][]int{}
	for i, s := range scenarios {
		groups[s.Gates] = append(groups[s.Gates], i)
	}
	for gates, at := range groups {
		var some []scenario
		for _, i := range at {
			some = append(some, scenarios[i])
		}
		for j, a := range askOracleOnce(t, release, gates, some) {
			answers[at[j]] = a
		}
	}
	return answers
}

// askOracleOnce runs the oracle of release with gates (when not "") on the
// scenarios.
func askOracleOnce(t *testing.T, release, gates string, scenarios []scenario) []answer {
	t.Helper()
	dir := os.Getenv("CLAIMBRIDGE_ORACLE_DIR")
	if dir == "" {
		t.Fatalf("CLAIMBRIDGE_ORACLE_DIR is not set: `make record` builds the oracles (hack/oracle-assets.sh --print-dir)")
	}
	bin := filepath.Join(dir, "k8s-"+release)
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("oracle of Kubernetes %s missing (%v): run `make oracle-assets` (`make record` builds it)", release, err)
	}
	in, err := json.Marshal(scenarios)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin)
	if gates != "" {
		cmd.Args = append(cmd.Args, "--feature-gates="+gates)
	}
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
