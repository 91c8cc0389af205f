package webhook

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/defaulting"
	"github.com/claimbridge/claimbridge/validation"
)

// decideFunc decides one admission request.
type decideFunc func(req *admissionv1.AdmissionRequest) admissionv1.AdmissionResponse

// admissionHandler serves an AdmissionReview admission.k8s.io/v1 or v1beta1
// with decide, named decider in the denial of its panic. It answers every
// review it can name with a denial, never an HTTP error: with
// failurePolicy Ignore, kube-apiserver would admit the write unchecked.
func (s *Server) admissionHandler(path, decider string, decide decideFunc) http.Handler {
	// One level less than a ConversionReview: every object admitted fits
	// in the reviews that read it through another version.
	e := endpoint{path: path, maxBytes: s.cfg.MaxValidateBodyBytes, maxDepth: max(1, s.cfg.MaxJSONDepth-1),
		requireCert: s.cfg.ClientCAFile != "", kind: "AdmissionReview", group: "admission.k8s.io", deny: true}
	return s.serveReview(e, func(x exchange) {
		var review admissionv1.AdmissionReview
		if !x.decode(&review, &review.TypeMeta, func() bool { return review.Request != nil && review.Request.UID != "" }) {
			return
		}
		req := review.Request
		x.log = x.log.WithValues("uid", logString(string(req.UID)), "kind", logString(req.Kind.Kind), "object", klog.KRef(logString(req.Namespace), logString(req.Name)),
			"operation", logString(string(req.Operation)), "subResource", logString(req.SubResource))
		resp := func() (resp admissionv1.AdmissionResponse) { // a denial of code 500 when decide panics
			defer s.catch(path, func(p any) { resp = denied(apierrors.NewInternalError(fmt.Errorf("%s panicked: %v", decider, p))) })
			return decide(req)
		}()
		resp.UID = req.UID
		resp.Warnings = fitWarnings(resp.Warnings)
		x.answer(operationLabel(req.Operation), logVerdict(x.log, &resp, x.start), &admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: &resp})
	})
}

// logVerdict logs resp and returns its result label.
func logVerdict(log logr.Logger, resp *admissionv1.AdmissionResponse, start time.Time) string {
	if resp.Allowed {
		log.V(4).Info("Admission allowed", "warnings", len(resp.Warnings), "patch", len(resp.Patch), "duration", time.Since(start))
		return "allowed"
	}
	log.Info("Admission denied", "code", resp.Result.Code, "reason", resp.Result.Reason, "causes", deniedFields(resp.Result))
	log.V(4).Info("Admission denial message", "message", logString(resp.Result.Message))
	if resp.Result.Code == http.StatusUnprocessableEntity {
		return "denied"
	}
	return "error"
}

// operationLabel keeps the operation label to admission's four values.
func operationLabel(op admissionv1.Operation) string {
	if slices.Contains([]admissionv1.Operation{admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect}, op) {
		return string(op)
	}
	return "unknown"
}

func allowed(warnings []string) admissionv1.AdmissionResponse {
	return admissionv1.AdmissionResponse{Allowed: true, Warnings: warnings}
}

// denied carries err's status, its code and reason included.
func denied(err *apierrors.StatusError) admissionv1.AdmissionResponse {
	st := err.Status()
	return admissionv1.AdmissionResponse{Result: &st}
}

// ValidateFunc validates one admission request; its error means unusable
// input, findings go into the response.
type ValidateFunc func(validation.Request) (validation.Response, error)

// handleValidate decides /validate with Config.Validator. It allows what it
// does not validate (DELETE, CONNECT, subresources other than status) and
// denies an invalid object with exactly apierrors.NewInvalid's status: 422
// with a cause per field.
func (s *Server) handleValidate(req *admissionv1.AdmissionRequest) admissionv1.AdmissionResponse {
	op := validation.Operation(req.Operation)
	if op != validation.Create && op != validation.Update || req.SubResource != "" && req.SubResource != "status" {
		return allowed(nil)
	}
	if bad := unservedKind(req); bad != nil {
		return denied(bad)
	}
	res, err := s.cfg.Validator(validation.Request{Operation: op, SubResource: req.SubResource, ObjectJSON: req.Object.Raw, OldObjectJSON: req.OldObject.Raw,
		MaxViewDepth: convertedDepth(s.cfg.MaxJSONDepth), CEL: s.cel}) // a view no deeper than /convert returns
	if err != nil {
		return denied(apierrors.NewBadRequest(err.Error()))
	}
	if len(res.Errors) == 0 {
		return allowed(res.Warnings)
	}
	// No warnings with a denial: kube-apiserver adds a strategy's warnings
	// only to a write that passed, and kubectl would print them above the
	// error, about an object not stored.
	gk := cmp.Or(res.GroupKind, schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind})
	return denied(apierrors.NewInvalid(gk, cmp.Or(res.Name, req.Name), res.Errors))
}

// unservedKind refuses a kind this webhook does not serve (the webhook
// configuration sends only claims and templates).
func unservedKind(req *admissionv1.AdmissionRequest) *apierrors.StatusError {
	if req.Kind.Group == api.Group && api.IsKind(req.Kind.Kind) && api.IsServed(req.Kind.Version) {
		return nil
	}
	return apierrors.NewBadRequest(fmt.Sprintf("kind %s.%s/%s is not served by this webhook", req.Kind.Kind, req.Kind.Group, req.Kind.Version))
}

// handleDefault decides /default: a claim or template created or updated
// (not its status) gets, as a JSON Patch (package defaulting), the
// defaults of its version's release and what its stored form must keep.
func handleDefault(req *admissionv1.AdmissionRequest) admissionv1.AdmissionResponse {
	op := req.Operation
	if op != admissionv1.Create && op != admissionv1.Update || req.SubResource != "" {
		return allowed(nil)
	}
	if bad := unservedKind(req); bad != nil {
		return denied(bad)
	}
	obj, err := api.DecodeObject(req.Object.Raw)
	if err != nil {
		return denied(apierrors.NewBadRequest(fmt.Sprintf("object %v", err)))
	}
	// The stored object of an update, decoded only when needed.
	oldObject := func() (map[string]interface{}, error) {
		if op != admissionv1.Update {
			return nil, nil
		}
		old, err := api.DecodeObject(req.OldObject.Raw)
		if err != nil {
			return nil, fmt.Errorf("oldObject %v", err)
		}
		return old, nil
	}
	ops, warnings, err := defaulting.Patch(obj, oldObject, req.Kind.Version, req.Kind.Kind)
	if err != nil {
		return denied(apierrors.NewBadRequest(err.Error()))
	}
	if len(ops) == 0 {
		return allowed(warnings)
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return denied(apierrors.NewInternalError(err))
	}
	patchType := admissionv1.PatchTypeJSONPatch
	return admissionv1.AdmissionResponse{Allowed: true, Patch: patch, PatchType: &patchType, Warnings: warnings}
}

// maxLoggedString bounds each string a log line takes from a request: the
// client chooses them, and whole they could write megabytes of log.
const maxLoggedString = 256

// logString is s, a client's string, for a log line: printable, and cut to
// maxLoggedString bytes with its length. klog writes a value holding a
// newline raw over several lines, so a uid such as "x\n\x1b[2J…" would
// put escape sequences of its choice into an operator's terminal.
func logString(s string) string {
	if len(s) <= maxLoggedString {
		return printable(s)
	}
	return fmt.Sprintf("%s… (%d bytes)", printable(s[:maxLoggedString]), len(s))
}

// printable is s with invalid UTF-8 as U+FFFD and the C0 controls (newline
// and tab included), DEL and the C1 controls as Go escapes them (\n, \x1b,
// \u009b).
func printable(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }

// maxLoggedCauses bounds the causes a denial's log line names.
const maxLoggedCauses = 8

// deniedFields names a denial's causes by reason and field path for its log
// line; their messages quote the object and are logged only at -v=4.
func deniedFields(st *metav1.Status) []string {
	if st == nil || st.Details == nil {
		return nil
	}
	var out []string
	for i, c := range st.Details.Causes {
		if i == maxLoggedCauses {
			out = append(out, fmt.Sprintf("… (%d causes)", len(st.Details.Causes)))
			break
		}
		out = append(out, logString(string(c.Type)+" "+c.Field))
	}
	return out
}

// kube-apiserver's budget for the warnings of one response
// (k8s.io/apiserver/pkg/endpoints/filters/warning.go): past 4096 runes in
// all it cuts every warning to 256 runes and drops those that no longer fit,
// without saying so.
const (
	warningBudgetRunes = 4096
	warningItemRunes   = 256
)

// fitWarnings returns warnings as the apiserver will pass them on. They quote
// the client, and kube-apiserver drops one with invalid UTF-8 or a control
// character (apimachinery's net.NewWarningHeader), so each is made printable.
// Over budget, each is cut to 256 runes and the last says how many more.
func fitWarnings(warnings []string) []string {
	warnings = slices.Clone(warnings) // the caller's slice stays as it was
	total := 0
	for i, w := range warnings {
		warnings[i] = printable(w)
		total += utf8.RuneCountInString(warnings[i])
	}
	if total <= warningBudgetRunes {
		return warnings
	}
	maxItems := warningBudgetRunes / warningItemRunes
	out := make([]string, 0, min(len(warnings), maxItems))
	for i, w := range warnings {
		if len(out) == maxItems-1 && len(warnings)-i > 1 {
			out = append(out, fmt.Sprintf("%d more warnings not shown (the apiserver passes on at most 4 KiB of them): claimbridge validate -f <the object> prints them all", len(warnings)-i))
			break
		}
		if utf8.RuneCountInString(w) > warningItemRunes {
			w = string([]rune(w)[:warningItemRunes-1]) + "…"
		}
		out = append(out, w)
	}
	return out
}
