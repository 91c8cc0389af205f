package migrate

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/judge"
	"github.com/claimbridge/claimbridge/report"
)

func say(v *report.Verdict, severity string, obj map[string]interface{}, msgs ...string) {
	for _, msg := range msgs {
		f := report.Finding{Severity: severity, Message: msg}
		if obj != nil {
			f.Kind, f.Object, _ = strings.Cut(api.Describe(obj), " ")
		}
		v.Findings = append(v.Findings, f)
	}
}

// refuse ends v with an error about obj (nil: about the document).
func refuse(v *report.Verdict, obj map[string]interface{}, msg string, malformed bool) report.Verdict {
	say(v, report.Error, obj, msg)
	v.Findings[len(v.Findings)-1].Malformed = malformed
	v.Outcome, v.Object = report.Refused, nil
	return *v
}

// refuseErr refuses on err, which names the object itself.
func refuseErr(v *report.Verdict, err error) report.Verdict {
	var malformed *conversion.MalformedError
	return refuse(v, nil, err.Error(), errors.As(err, &malformed))
}

// report adds the findings of a Report about obj.
func addReport(v *report.Verdict, obj map[string]interface{}, r changes) {
	if len(r.Dropped) > 0 {
		say(v, report.Note, obj, "dropped "+strings.Join(slices.Compact(slices.Clone(r.Dropped)), ", "))
	}
	seen := map[string]bool{}
	once := func(severity, msg string) {
		if !seen[severity+msg] {
			seen[severity+msg] = true
			say(v, severity, obj, msg)
		}
	}
	for _, c := range r.Changed {
		once(report.Note, "changed "+c)
	}
	for _, l := range r.Lost {
		once(report.Note, "lost "+l)
	}
	for _, w := range r.Warnings {
		once(report.Warning, w)
	}
}

// warn adds conversion warnings, each field of an object once: a field
// that two conversion steps lose is one loss for the user. The last
// rejected of ws are what the target rejects: errors, also of a field
// already said.
func warn(v *report.Verdict, ws []conversion.Warning, to string, rejected int) {
	type field struct{ kind, object, path string }
	seen := map[field]int{} // the finding of each field
	for i, w := range ws {
		severity := report.Warning
		if i >= len(ws)-rejected {
			severity = report.Error
		}
		f := field{w.Kind, w.Object, w.Path}
		if j, ok := seen[f]; ok {
			if severity == report.Error {
				v.Findings[j].Severity = severity
			}
			continue
		}
		seen[f] = len(v.Findings)
		path, msg, _ := strings.Cut(w.Text(to), ": ")
		v.Findings = append(v.Findings, report.Finding{Severity: severity, Kind: w.Kind, Object: w.Object, Path: path, Message: msg})
	}
}

// Convert converts a claim or template (or a typed list of them, or a
// KindList's items) to the target, and passes anything else through, Pods
// and workloads in the target's shape. What the target release reads differently is a warning,
// what it rejects an error (the object is written all the same); what
// cannot be converted is refused.
func Convert(obj map[string]interface{}, target Target) report.Verdict {
	v := report.Verdict{Outcome: report.Converted}
	group, from, kind, err := conversion.Identify(obj)
	if err != nil {
		if errors.Is(err, conversion.ErrNewerV1alpha3) {
			return refuseErr(&v, err)
		}
		if mistaken, ok := MistakenClaim(obj, err); ok {
			return refuse(&v, obj, "not converted: "+mistaken, false)
		}
		if KindList(obj) {
			return convertItems(obj, target)
		}
		return passThrough(obj, target, err)
	}
	to := target.Version
	out, ws, err := conversion.ConvertWithWarnings(obj, to)
	if err != nil {
		return refuseErr(&v, err)
	}
	unknown, err := unknownFieldWarnings(obj, group, from, kind, to)
	if err != nil {
		return refuseErr(&v, err)
	}
	v.Object = out
	classic, rejected := targetWarnings(obj, out, group, from, kind, target)
	warn(&v, slices.Concat(unknown, ws, classic, rejected), to, len(rejected))
	return v
}

// MistakenClaim says why obj, which conversion.Identify refused with err, is
// not converted when it is most likely a claim or template with a wrong
// apiVersion or kind (api.MistakenClaim).
func MistakenClaim(obj map[string]interface{}, err error) (string, bool) {
	kind, ok := api.MistakenClaim(obj)
	if !ok {
		return "", false
	}
	hint := ""
	if k, _ := obj["kind"].(string); k != kind {
		hint = fmt.Sprintf(" (did you mean kind %s?)", kind)
	}
	return err.Error() + hint, true
}

// passThrough returns an object Convert does not convert, which Identify
// refused with why: Pods and workloads get the target's resourceClaims
// shape. What the target release rejects is an error: a
// resource.k8s.io object of a version or kind it does not serve, a name it
// refuses, a misspelt group, a pod field it lacks. A DeviceClass,
// ResourceSlice or DeviceTaintRule is converted and judged (judgeKind), and
// so is an object of 1.26–1.30's kinds in the target's version.
// Other kinds of the claim groups get a note.
func passThrough(obj map[string]interface{}, target Target, why error) report.Verdict {
	v := report.Verdict{Outcome: report.Passed, Object: obj}
	_, group, _, kind, _ := api.TypeOf(obj)
	// A kind of 1.26–1.30 (KindOf) is judged in the version the target
	// serves it in, and left to NotServed in another.
	if from, k := judge.KindOf(obj); k != "" {
		switch to := api.CreatedIn(k, target.Minor); {
		case to == from:
			return judgeKind(v, obj, from, k, target, false)
		case to != "" && target.Devices && devicesIn(from):
			return judgeKind(report.Verdict{Outcome: report.Converted}, obj, from, k, target, false)
		}
	}
	if notServed := NotServed(obj, target); notServed != "" {
		w := notServed + ", passed through unchanged"
		if strings.HasSuffix(kind, "Class") || strings.HasSuffix(kind, "Parameters") {
			w += " (claimbridge migrate rewrites classes and parameters for it)"
		}
		say(&v, report.Error, obj, w)
		return v
	}
	if group == api.UpstreamGroup {
		errs := nameErrors(obj)
		for _, e := range errs {
			say(&v, report.Error, obj, e+": the apiserver rejects this object, passed through unchanged")
		}
		if len(errs) > 0 {
			return v
		}
	}
	if api.IsGroup(group) {
		say(&v, report.Note, nil, fmt.Sprintf("passed through unchanged: %v", why))
	}
	if typo := api.GroupTypo(obj); typo != "" {
		say(&v, report.Warning, obj, typo+" (passed through unchanged; no cluster serves that group)")
		return v
	}
	if isWorkload(obj) {
		return workload(obj, target)
	}
	return v
}

// workload gives a Pod or workload the resourceClaims shape of the target,
// as Migrate does. What is rewritten is a note; what the target cannot
// hold is a warning; what it rejects (a pod spec field it lacks) an error.
func workload(obj map[string]interface{}, target Target) report.Verdict {
	v := report.Verdict{Outcome: report.Passed, Object: obj}
	out, r, ok := podShape(obj, target)
	if ok {
		v.Object = out
	}
	if len(r.Changed) > 0 {
		v.Outcome = report.Rewritten
	}
	for _, c := range r.Changed {
		say(&v, report.Note, obj, "changed "+c)
	}
	for _, l := range r.Lost {
		say(&v, report.Warning, obj, l+" (not kept: claimbridge keeps restore data for claims and templates only)")
	}
	for _, e := range append(nameErrors(v.Object), claimRefErrors(v.Object)...) {
		say(&v, report.Error, obj, e+": the apiserver rejects this object")
	}
	for _, e := range podFieldErrors(v.Object, target) {
		say(&v, report.Error, obj, e+": "+podFieldConsequence)
	}
	say(&v, report.Warning, obj, podFieldWarnings(v.Object, target)...)
	return v
}

// unknownFieldWarnings warns of spec and status fields of claims and
// templates that their own version does not have. Conversion keeps them
// only in a restore annotation, so the converted object does not ask for
// them (a 1.31 body labelled v1alpha2 becomes a claim without requests).
func unknownFieldWarnings(obj map[string]interface{}, group, from, kind, to string) ([]conversion.Warning, error) {
	if from == to || !api.IsServed(from) && !api.IsServed(to) {
		return nil, nil // between GA versions such fields are carried as they are
	}
	// From a GA version they are carried to v1beta1, whose annotation keeps them.
	kept := from
	if !api.IsServed(from) {
		kept = api.V1beta1
	}
	objects, prefix, err := itemsOf(obj, kind)
	if err != nil {
		return nil, err
	}
	var ws []conversion.Warning
	for i, item := range objects {
		// Unknown fields elsewhere are carried as they are.
		paths := slices.DeleteFunc(unknownFields(item), func(p string) bool {
			return !strings.HasPrefix(p, "spec.") && !strings.HasPrefix(p, "status.")
		})
		for _, p := range paths {
			hint := cmp.Or(shapeHint([]string{p}), shapeHint(paths))
			ws = append(ws, conversion.Warning{
				Kind: strings.TrimSuffix(kind, "List"), Object: api.Ref(item),
				From: from, To: to, Path: prefix(i) + p,
				Message: fmt.Sprintf("unknown field in %s/%s: kept only in the %s annotation, so the converted object does not carry it%s",
					group, from, api.RestoreAnnotation(kept), hint),
			})
		}
	}
	return ws, nil
}

// targetWarnings are the warnings about out, the conversion of in, as a
// whole: devices of a classic DRA driver, what the target release drops
// and what it needs beyond the object (judge: a namespace labelled for
// adminAccess), and, rejected, every rule of the target release that out
// breaks (migrate refuses such output).
func targetWarnings(in, out map[string]interface{}, group, from, kind string, target Target) (ws, rejected []conversion.Warning) {
	items, prefix, _ := itemsOf(in, kind)
	outItems, _, _ := itemsOf(out, kind)
	if len(items) != len(outItems) {
		return nil, nil
	}
	itemKind := strings.TrimSuffix(kind, "List")
	for i := range items {
		// at is the warning of finding f, "<path>: <message>".
		at := func(f string) conversion.Warning {
			w := conversion.Warning{Kind: itemKind, Object: api.Ref(outItems[i]), From: from, To: target.Version}
			w.Path, w.Message, _ = strings.Cut(f, ": ")
			w.Path = prefix(i) + w.Path
			return w
		}
		if c := classicWarningOf(items[i], from, itemKind, target.Version, nil, false); c != "" {
			ws = append(ws, at(c))
		}
		if group != api.UpstreamGroup && isGA(target.Version) {
			continue
		}
		if group == api.UpstreamGroup && isGA(target.Version) {
			// What the release drops with its default feature gates, and
			// what needs more than the object (a namespace labelled for
			// adminAccess), as validate --to says it. From v1alpha3 and
			// older, the v1alpha3 → v1beta1 step warned of adminAccess.
			said := judge.Dropped(outItems[i], target.Cluster, itemKind)
			if isGA(from) {
				said = append(said, judge.AdminAccessWarnings(outItems[i], target.Cluster, itemKind)...)
			}
			for _, d := range said {
				ws = append(ws, at(d))
			}
		}
		errs, err := targetErrors(outItems[i], target, itemKind)
		if err != nil {
			continue // conversion said what cannot be read
		}
		for _, e := range errs {
			w := at(e)
			w.Message += fmt.Sprintf(": a Kubernetes %s apiserver rejects this object", target.Releases)
			rejected = append(rejected, w)
		}
	}
	return ws, rejected
}

// itemsOf are the items of obj when kind is a typed list (ListItems), else
// obj alone, and the path prefix of each ("items[0].", or "").
func itemsOf(obj map[string]interface{}, kind string) ([]map[string]interface{}, func(int) string, error) {
	if !strings.HasSuffix(kind, "List") {
		return []map[string]interface{}{obj}, func(int) string { return "" }, nil
	}
	items, err := ListItems(obj)
	return items, func(i int) string { return fmt.Sprintf("items[%d].", i) }, err
}

// ListItems are the items of a typed list (ResourceClaimList), each with
// the list's apiVersion and item kind unless it has its own.
func ListItems(list map[string]interface{}) ([]map[string]interface{}, error) {
	kind, _ := list["kind"].(string)
	items, ok := list["items"].([]interface{})
	if !ok && list["items"] != nil {
		return nil, fmt.Errorf("the items of the %s are not an array", kind)
	}
	out := make([]map[string]interface{}, 0, len(items))
	for i, it := range items {
		item, ok := it.(map[string]interface{})
		if !ok {
			return nil, fmt.Errorf("items[%d] of the %s is not an object", i, kind)
		}
		item = maps.Clone(item)
		if _, ok := item["apiVersion"]; !ok {
			item["apiVersion"] = list["apiVersion"]
		}
		if _, ok := item["kind"]; !ok {
			item["kind"] = strings.TrimSuffix(kind, "List")
		}
		out = append(out, item)
	}
	return out, nil
}

// KindList reports whether obj is a typed list of a judge.KindOf kind.
func KindList(obj map[string]interface{}) bool {
	kind, _ := obj["kind"].(string)
	_, item := judge.KindOf(map[string]interface{}{"apiVersion": obj["apiVersion"], "kind": strings.TrimSuffix(kind, "List")})
	return item != "" && item != kind
}

// convertItems converts the items of list, a KindList, each as Convert does
// alone; the list takes their apiVersion, or is refused with one of them.
func convertItems(list map[string]interface{}, target Target) report.Verdict {
	v := report.Verdict{Outcome: report.Passed, Object: maps.Clone(list)}
	items, err := ListItems(list)
	if err != nil {
		return refuseErr(&v, err)
	}
	out := make([]interface{}, len(items))
	for i, item := range items {
		iv := Convert(item, target)
		v.Findings, out[i] = append(v.Findings, iv.Findings...), iv.Object
		if iv.Outcome == report.Refused || v.Outcome == report.Refused {
			v.Outcome, v.Object = report.Refused, nil
		} else if iv.Outcome == report.Converted {
			v.Outcome, v.Object["apiVersion"], v.Object["items"] = iv.Outcome, iv.Object["apiVersion"], out
		}
	}
	return v
}

// Migrate re-creates obj on the target release: a claim or template (not a
// typed list: its items one by one), a class or 1.30 parameters object, a
// Pod or workload, or anything else, passed through as Convert does. An
// object the target rejects is refused; what the old cluster's components
// create again is left out.
func Migrate(obj map[string]interface{}, target Target, opts Options) report.Verdict {
	v := report.Verdict{Outcome: report.Converted}
	if note, ok := clusterStateNote(obj); ok {
		return leftOut(obj, note)
	}
	if isDeviceClass(obj) || isParameters(obj) {
		return migrateClass(obj, target, opts)
	}
	if from, kind := judge.KindOf(obj); kind == api.KindDeviceTaintRule && target.Devices && api.CreatedIn(kind, target.Minor) != "" {
		return migrateTaintRule(obj, from, target, opts)
	}
	group, from, kind, err := conversion.Identify(obj) // the one identification of a claim or template
	switch {
	case errors.Is(err, conversion.ErrNewerV1alpha3):
		// A 1.32/1.33 manifest: its advice (label it v1beta1), not that
		// the target does not serve v1alpha3.
		return refuseErr(&v, err)
	case err != nil:
		return migrateOther(obj, target, opts, err)
	case strings.HasSuffix(kind, "List"):
		return refuse(&v, obj, "migrate the items of a list one by one", false)
	}
	if kind == api.KindClaim && !opts.KeepOwnerReferences {
		if pod, entry, generated := generatedForPod(obj); generated {
			return leftOut(obj, generatedNote(pod, entry))
		}
	}
	out, rep, err := migrateObject(obj, group, from, kind, target, opts)
	return migrated(report.Converted, obj, out, rep, err)
}

// leftOut is the verdict on obj, which the target does not get, for why.
func leftOut(obj map[string]interface{}, why string) report.Verdict {
	v := report.Verdict{Outcome: report.LeftOut}
	say(&v, report.Note, obj, "left out: "+why)
	return v
}

// migrated is the verdict on obj, migrated to out with the changes rep, or
// refused for err.
func migrated(outcome string, obj, out map[string]interface{}, rep changes, err error) report.Verdict {
	v := report.Verdict{Outcome: outcome}
	if err != nil {
		// What was lost and the warnings explain most refusals.
		addReport(&v, obj, changes{Lost: rep.Lost, Warnings: rep.Warnings})
		return refuseErr(&v, err)
	}
	addReport(&v, obj, rep)
	v.Object = out
	return v
}

// migrateClass rewrites a class or 1.30 parameters object for the target,
// or leaves it out where the target has no such kind.
func migrateClass(obj map[string]interface{}, target Target, opts Options) report.Verdict {
	v := report.Verdict{Outcome: report.Converted}
	rewrite, why := migrateDeviceClass, "has no DeviceClass (its claims name a ResourceClass)"
	if !isDeviceClass(obj) {
		rewrite, why = migrateParameters, "does not serve it"
	}
	out, rep, served := rewrite(obj, target, opts)
	if !served {
		return leftOut(obj, fmt.Sprintf("Kubernetes %s %s", target.Releases, why))
	}
	addReport(&v, obj, rep)
	if errs := nameErrors(out); len(errs) > 0 {
		return refuse(&v, obj, rejectedBy(target, errs), false)
	}
	warnings, err := checkKind(out, target)
	say(&v, report.Warning, obj, warnings...)
	if err != nil {
		return refuseErr(&v, err)
	}
	v.Object = out
	return v
}

// migrateOther migrates what is not a claim or template, which Identify
// refused with why: a Pod or workload, or anything else, which is passed
// through unless the target rejects it.
func migrateOther(obj map[string]interface{}, target Target, opts Options, why error) report.Verdict {
	v := report.Verdict{Outcome: report.Rewritten}
	if isWorkload(obj) {
		if owner, controlled := controlledPod(obj); controlled && !opts.KeepOwnerReferences {
			return leftOut(obj, "created by "+owner+", whose migrated workload the new cluster's controller creates it again from "+
				"(this copy would be one pod too many; --keep-owner-references keeps it)")
		}
		out, rep, err := migrateWorkload(obj, target, opts)
		return migrated(report.Rewritten, obj, out, rep, err)
	}
	if mistaken, ok := MistakenClaim(obj, why); ok {
		return refuse(&v, obj, "not converted: "+mistaken, false)
	}
	if _, group, _, _, _ := api.TypeOf(obj); group == api.UpstreamGroup {
		errs := nameErrors(obj)
		if notServed := NotServed(obj, target); notServed != "" {
			errs = []string{notServed}
		}
		if len(errs) > 0 {
			return refuse(&v, obj, rejectedBy(target, errs), false)
		}
	}
	if typo := api.GroupTypo(obj); typo != "" {
		return refuse(&v, obj, rejectedBy(target, []string{typo}), false)
	}
	return passThrough(obj, target, why)
}

// rejectedBy says that the target release rejects an object for errs.
func rejectedBy(target Target, errs []string) string {
	return fmt.Sprintf("a Kubernetes %s apiserver would reject it: %s", target.Releases, strings.Join(errs, "; "))
}

// generatedNote says why a claim generated for a pod is left out.
func generatedNote(pod, entry string) string {
	of := "Pod " + pod
	if entry != "" {
		of += fmt.Sprintf(" (its resourceClaims entry %q)", entry)
	}
	return "generated for " + of + " from a ResourceClaimTemplate; the resourceclaim controller of the new cluster " +
		"creates the pod's claim again from the template when the pod is re-created (migrate the template and the pod's workload), " +
		"while this copy, without its pod, would never be used (--keep-owner-references keeps it, for pods that survive with the same uids)"
}
