package conversion

// v1beta2 (1.33) and v1 (1.34+) have the same ResourceClaim and
// ResourceClaimTemplate fields (k8s.io/api v0.36 resource/v1beta2 and
// resource/v1): the step copies every section as it is and never needs a
// restore annotation.
