// Package monitoring checks the alert rules and the Grafana dashboard shipped
// in charts/claimbridge/files against the metrics a real claimbridge server
// exports: every claimbridge_* name they use must appear in a scrape of the
// server after it has served each kind of request, with the labels they
// select on and group by, so that a renamed metric or label cannot leave an
// alert silently never firing; and an alert on any increase must select a
// series that exists before the first event.
package monitoring

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/webhook"
)

// external are the metric names the rules use that other exporters provide.
var external = []string{"kube_deployment_status_replicas_available", "up"}

// exports are metric names the server exports after the requests of scrape
// (docs/server.md, "Metrics"), histograms by their _bucket series; with the
// Go and process collectors, represented by one name each.
var exports = []string{
	"claimbridge_webhook_requests_total",
	"claimbridge_webhook_request_duration_seconds_bucket",
	"claimbridge_webhook_requests_in_flight",
	"claimbridge_webhook_shed_total",
	"claimbridge_conversion_objects_total",
	"claimbridge_conversion_cache_lookups_total",
	"claimbridge_conversion_cache_bytes",
	"claimbridge_conversion_cache_entries",
	"claimbridge_certificate_expiration_timestamp_seconds",
	"claimbridge_certificate_not_before_timestamp_seconds",
	"claimbridge_certificate_ca_expiration_timestamp_seconds",
	"claimbridge_certificate_reloads_total",
	"claimbridge_webhook_panics_total",
	"claimbridge_webhook_tls_handshake_errors_total",
	"claimbridge_build_info",
	"claimbridge_token_policy_enforced",
	"go_goroutines",
	"process_resident_memory_bytes",
}

// removed are metric names (or prefixes of names, before a "_") the server
// no longer exports, which the rules and the dashboard must not use.
var removed = []string{
	"claimbridge_webhook_connections",
	"claimbridge_webhook_listen_backlog",
	"claimbridge_webhook_listen_refusing",
	"claimbridge_webhook_queued_reviews",
	"claimbridge_webhook_running_reviews",
	"claimbridge_webhook_shed_duration_seconds",
	"claimbridge_conversion_cache_object_lookups_total",
}

var (
	ownName   = regexp.MustCompile(`\bclaimbridge_[a-z0-9_]+\b`)
	otherName = regexp.MustCompile(`\b(kube_[a-z0-9_]+|up)\{`)
)

type ruleFile struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []struct {
			Alert       string            `json:"alert"`
			Expr        string            `json:"expr"`
			For         string            `json:"for"`
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"rules"`
	} `json:"groups"`
}

func chartFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "charts", "claimbridge", "files", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// ruleExprs returns every alert's expression, checking the fields each alert
// must have.
func ruleExprs(t *testing.T) []string {
	var rf ruleFile
	if err := yaml.UnmarshalStrict(chartFile(t, "alerts.yaml"), &rf); err != nil {
		t.Fatalf("alerts.yaml: %v", err)
	}
	var exprs []string
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Expr == "" || r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("alert %q: needs alert, expr, summary and description", r.Alert)
			}
			if s := r.Labels["severity"]; s != "warning" && s != "critical" {
				t.Errorf("alert %s: severity %q, want warning or critical", r.Alert, s)
			}
			exprs = append(exprs, r.Expr)
		}
	}
	if len(exprs) == 0 {
		t.Fatal("alerts.yaml holds no alert")
	}
	return exprs
}

// dashboardExprs returns the expressions of every panel target and template
// variable query.
func dashboardExprs(t *testing.T) []string {
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(chartFile(t, "dashboard.json"), &d); err != nil {
		t.Fatalf("dashboard.json: %v", err)
	}
	var exprs []string
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	for _, v := range d.Templating.List {
		exprs = append(exprs, string(v.Query))
	}
	return exprs
}

// namesIn returns the sorted distinct claimbridge_* names in exprs.
func namesIn(exprs []string) []string {
	var names []string
	for _, e := range exprs {
		for _, n := range ownName.FindAllString(e, -1) {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}

func TestRulesAndDashboardUseExportedMetrics(t *testing.T) {
	exported := names(scrape(t).served)
	rules, dashboard := ruleExprs(t), dashboardExprs(t)

	for _, c := range []struct {
		name  string
		exprs []string
	}{{"alerts.yaml", rules}, {"dashboard.json", dashboard}} {
		names := namesIn(c.exprs)
		if len(names) == 0 {
			t.Errorf("%s uses no claimbridge metric", c.name)
		}
		for _, n := range names {
			if !exported[n] {
				t.Errorf("%s uses %s, which the server does not export", c.name, n)
			}
		}
	}

	// The series the server dropped (the connection limiter, the accept
	// queue's overload mode, the slot gate's queue gauges, the shed
	// durations, the per-object cache lookups) are used nowhere.
	for _, c := range []struct {
		name  string
		exprs []string
	}{{"alerts.yaml", rules}, {"dashboard.json", dashboard}} {
		for _, n := range namesIn(c.exprs) {
			for _, r := range removed {
				if n == r || strings.HasPrefix(n, r+"_") {
					t.Errorf("%s uses %s, which the server no longer exports", c.name, n)
				}
			}
		}
	}
	for _, n := range exports {
		if !exported[n] {
			t.Errorf("the server does not export %s", n)
		}
	}

	var others []string
	for _, e := range rules {
		for _, m := range otherName.FindAllStringSubmatch(e, -1) {
			if !slices.Contains(others, m[1]) {
				others = append(others, m[1])
			}
		}
	}
	slices.Sort(others)
	if diff := cmp.Diff(external, others); diff != "" {
		t.Errorf("metrics from other exporters in alerts.yaml (-want +got):\n%s", diff)
	}

	// Every subject of the operations guide (errors, latency, certificates,
	// shedding, token policy, conversions) has an alert or a dashboard panel.
	for _, want := range []struct{ in, name string }{
		{"rules", "claimbridge_webhook_requests_total"},
		{"rules", "claimbridge_webhook_request_duration_seconds_bucket"},
		{"rules", "claimbridge_certificate_expiration_timestamp_seconds"},
		{"rules", "claimbridge_certificate_ca_expiration_timestamp_seconds"},
		{"rules", "claimbridge_webhook_shed_total"},
		{"rules", "claimbridge_token_policy_enforced"},
		{"dashboard", "claimbridge_conversion_objects_total"},
		{"dashboard", "claimbridge_webhook_requests_in_flight"},
		{"dashboard", "claimbridge_webhook_shed_total"},
		{"dashboard", "claimbridge_certificate_not_before_timestamp_seconds"},
	} {
		exprs := rules
		if want.in == "dashboard" {
			exprs = dashboard
		}
		if !slices.Contains(namesIn(exprs), want.name) {
			t.Errorf("%s do not use %s", want.in, want.name)
		}
	}
}

// series is one sample of a scrape: its metric name and labels.
type series struct {
	name   string
	labels map[string]string
}

// sameSeries reports whether o is the same series as s: name and labels.
func (s series) sameSeries(o series) bool {
	return s.name == o.name && maps.Equal(s.labels, o.labels)
}

// scrapes are the samples of a server before any request (fresh) and after
// each kind (served).
type scrapes struct{ fresh, served []series }

// names returns the metric names of ss.
func names(ss []series) map[string]bool {
	m := map[string]bool{}
	for _, s := range ss {
		m[s.name] = true
	}
	return m
}

// scrape runs a server, reads /metrics before any request, sends it a
// conversion, a conversion that fails (the converter panics) and a
// validation, and reads /metrics again.
func scrape(t *testing.T) scrapes {
	t.Helper()
	cfg := webhook.Config{
		BindAddress:          "127.0.0.1",
		CertDir:              t.TempDir(),
		MetricsAddress:       "127.0.0.1:0",
		MaxConvertBodyBytes:  64 << 20,
		MaxValidateBodyBytes: 7 << 20,
		MaxJSONDepth:         1000,
		RequestTimeout:       30 * time.Second,
		ShutdownTimeout:      30 * time.Second,
		// As claimbridge serve's default: the conversion cache's metrics
		// are exported only with the cache.
		ConversionCacheBytes: 16 << 20,
		// As the chart's and config/self-managed's self-managed server,
		// which checks its token policy: the gauge is exported only then.
		TokenPolicyGauge: true,
		// The upgrade guard, whose metrics are exported only with it: a
		// judge that finds every object rejected.
		Guard: &webhook.Guard{Release: "1.38", Judge: func(map[string]interface{}) ([]string, []string) {
			return []string{"apiVersion: Kubernetes 1.38 no longer serves resource.k8s.io/v1beta1 DeviceClass"}, []string{"deprecated"}
		}},
	}
	cfg.Converter = func(obj map[string]interface{}, to string) (map[string]interface{}, error) {
		if md, _ := obj["metadata"].(map[string]interface{}); md["name"] == "panic" {
			panic("test panic")
		}
		return conversion.Convert(obj, to)
	}
	srv, err := webhook.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	select {
	case <-srv.Started():
	case err := <-done:
		t.Fatalf("server stopped: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start")
	}

	claim, err := os.ReadFile(filepath.Join("..", "..", "webhook", "testdata", "claim-v1alpha1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got scrapes
	got.fresh = read(t, srv)
	panicky := bytes.Replace(claim, []byte(`"name":"gpu-claim"`), []byte(`"name":"panic"`), 1)
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // the test CA is irrelevant here
	}}
	base := "https://" + srv.Addr().String()
	post := func(path, body string, wantStatus int) {
		t.Helper()
		resp, err := client.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != wantStatus {
			t.Fatalf("POST %s: status %d, want %d", path, resp.StatusCode, wantStatus)
		}
	}
	review := func(obj []byte) string {
		return fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u1","desiredAPIVersion":"resource.claimbridge.dev/v1alpha3","objects":[%s]}}`, obj)
	}
	post("/convert", review(claim), http.StatusOK)
	post("/convert", review(panicky), http.StatusOK) // a failed review
	// An object the webhook does not convert: a list of a served version.
	post("/convert", review([]byte(`{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaimList","items":[]}`)), http.StatusOK)
	post("/validate", fmt.Sprintf(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u2","kind":{"group":"resource.claimbridge.dev","version":"v1alpha1","kind":"ResourceClaim"},"resource":{"group":"resource.claimbridge.dev","version":"v1alpha1","resource":"resourceclaims"},"namespace":"team-a","operation":"CREATE","object":%s}}`, claim), http.StatusOK)

	post("/guard", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u3","kind":{"group":"resource.k8s.io","version":"v1beta1","kind":"DeviceClass"},"resource":{"group":"resource.k8s.io","version":"v1beta1","resource":"deviceclasses"},"name":"gpu","operation":"CREATE","object":{"apiVersion":"resource.k8s.io/v1beta1","kind":"DeviceClass","metadata":{"name":"gpu"}}}}`, http.StatusOK)

	got.served = read(t, srv)
	return got
}

var sampleLabel = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// read returns the samples on srv's /metrics.
func read(t *testing.T, srv *webhook.Server) []series {
	t.Helper()
	resp, err := http.Get("http://" + srv.MetricsAddr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []series
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		s := series{name: line, labels: map[string]string{}}
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			s.name = line[:i]
			if line[i] == '{' { // a label value may hold spaces and braces
				for _, m := range sampleLabel.FindAllStringSubmatch(line[i:strings.LastIndexByte(line, '}')], -1) {
					s.labels[m[1]] = m[2]
				}
			}
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// targetLabels are the labels a scrape adds to every sample (the Prometheus
// operator's ServiceMonitor: namespace, service, pod, container, job,
// instance; its endpoint label would collide with the server's own, which
// the chart's ServiceMonitor keeps: test/manifests). The server exports
// none of them.
var targetLabels = []string{"namespace", "service", "pod", "container", "job", "instance"}

// selector is one claimbridge_* series selector of an expression.
type selector struct {
	text     string
	name     string
	matchers []matcher
}

type matcher struct{ label, op, value string }

var (
	selectorRE = regexp.MustCompile(`\b(claimbridge_[a-z0-9_]+)(\{[^}]*\})?`)
	matcherRE  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"`)
	byRE       = regexp.MustCompile(`\bby\s*\(([^)]*)\)`)
)

func selectorsIn(expr string) []selector {
	var out []selector
	for _, m := range selectorRE.FindAllStringSubmatch(expr, -1) {
		s := selector{text: m[0], name: m[1]}
		for _, mm := range matcherRE.FindAllStringSubmatch(m[2], -1) {
			s.matchers = append(s.matchers, matcher{mm[1], mm[2], mm[3]})
		}
		out = append(out, s)
	}
	return out
}

// matches reports whether s selects ss; matchers on target labels, which
// a scrape of the server itself lacks, are taken to hold.
func (s selector) matches(ss series) bool {
	if ss.name != s.name {
		return false
	}
	for _, m := range s.matchers {
		if slices.Contains(targetLabels, m.label) {
			continue
		}
		v := ss.labels[m.label]
		var ok bool
		switch m.op {
		case "=":
			ok = v == m.value
		case "!=":
			ok = v != m.value
		case "=~", "!~":
			ok = regexp.MustCompile("^(?:"+m.value+")$").MatchString(v) == (m.op == "=~")
		}
		if !ok {
			return false
		}
	}
	return true
}

func (s selector) matchesAny(ss []series) bool {
	return slices.ContainsFunc(ss, s.matches)
}

// An alert that fires on any increase of a counter (or any non-zero
// gauge) needs the series it selects to exist before the event: a counter
// series born with the first failure, at 1, shows no increase() until the
// second, so a single failed conversion would never fire
// ClaimbridgeConversionObjectFailures. The same holds for the dashboard's
// namespace variable, which must list a fresh server's namespace.
func TestSeriesExistBeforeTheirFirstEvent(t *testing.T) {
	got := scrape(t)
	var rf ruleFile
	if err := yaml.UnmarshalStrict(chartFile(t, "alerts.yaml"), &rf); err != nil {
		t.Fatalf("alerts.yaml: %v", err)
	}
	checked := 0
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			if !strings.HasSuffix(strings.TrimSpace(r.Expr), "> 0") {
				continue
			}
			for _, s := range selectorsIn(r.Expr) {
				checked++
				if !s.matchesAny(got.fresh) {
					t.Errorf("alert %s: %s selects no series before the first event: the first one(s) never fire it", r.Alert, s.text)
				}
				// Every series the traffic made that the alert selects
				// existed before it, not just one of them.
				for _, ss := range got.served {
					if s.matches(ss) && !slices.ContainsFunc(got.fresh, ss.sameSeries) {
						t.Errorf("alert %s: %s selects %s %v, which did not exist before its first event: that event never fires it", r.Alert, s.text, ss.name, ss.labels)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no alert on any increase found")
	}
	var d struct {
		Templating struct {
			List []struct {
				Name  string          `json:"name"`
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(chartFile(t, "dashboard.json"), &d); err != nil {
		t.Fatal(err)
	}
	for _, v := range d.Templating.List {
		for _, s := range selectorsIn(string(v.Query)) {
			if !s.matchesAny(got.fresh) {
				t.Errorf("dashboard variable %s: %s selects no series before the first review: the dashboard of an idle server offers no choice", v.Name, s.text)
			}
		}
	}
}

// Every label a rule or panel selects on or groups by is one the metric
// carries (or a target label): a renamed label would leave a selector that
// matches nothing, an alert that never fires.
func TestSelectorLabelsAreExported(t *testing.T) {
	served := scrape(t).served
	labelsOf := map[string]map[string]bool{}
	for _, s := range served {
		if labelsOf[s.name] == nil {
			labelsOf[s.name] = map[string]bool{}
		}
		for l := range s.labels {
			labelsOf[s.name][l] = true
		}
	}
	for _, c := range []struct {
		file  string
		exprs []string
	}{{"alerts.yaml", ruleExprs(t)}, {"dashboard.json", dashboardExprs(t)}} {
		for _, e := range c.exprs {
			sels := selectorsIn(e)
			carried := map[string]bool{}
			for _, s := range sels {
				for _, m := range s.matchers {
					if !slices.Contains(targetLabels, m.label) && !labelsOf[s.name][m.label] {
						t.Errorf("%s: %s selects on %q, which %s does not carry", c.file, s.text, m.label, s.name)
					}
				}
				for l := range labelsOf[s.name] {
					carried[l] = true
				}
			}
			if len(sels) == 0 {
				continue
			}
			for _, m := range byRE.FindAllStringSubmatch(e, -1) {
				for _, l := range strings.Split(m[1], ",") {
					if l = strings.TrimSpace(l); l != "" && !slices.Contains(targetLabels, l) && !carried[l] {
						t.Errorf("%s: %q groups by %q, which none of its metrics carries", c.file, e, l)
					}
				}
			}
		}
	}
}
