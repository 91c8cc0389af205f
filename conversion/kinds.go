package conversion

// KeepSpec is the lossy step of a kind Convert does not convert (a
// DeviceClass, ResourceSlice or DeviceTaintRule): obj holds the spec as the
// step's target version has it, which maps back to back; orig is the spec
// of version from before the step. What back lacks of orig is kept in
// obj's restore annotation of from, as a claim's step keeps it.
func KeepSpec(obj map[string]interface{}, from string, back, orig interface{}) error {
	r := &restore{}
	r.diffSection("spec", back, true, orig, true)
	if r.empty() {
		return nil
	}
	return pushRestore(obj, from, r)
}

// RestoreSpec reverses KeepSpec: obj, just converted back to version to,
// gets its spec patched from, and loses, its restore annotation of to.
// stale reports an annotation that does not apply (written for another
// spec, or not as KeepSpec writes it): it is removed, not applied.
func RestoreSpec(obj map[string]interface{}, to string) (stale bool) {
	r := popRestore(obj, to)
	if r == nil || r.Spec == nil {
		return r != nil && r.Status != nil
	}
	if !wellFormed("spec", r.Spec.Patch) || !matchesBase("spec", obj["spec"], true, r.Spec.Base) {
		return true
	}
	for _, op := range r.Spec.Patch {
		if ownsPath("spec", op.Path) {
			applyOperation(obj, op)
		}
	}
	return false
}
