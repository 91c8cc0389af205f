//go:build lib033

package main

import resourceapi "k8s.io/api/resource/v1beta1"

// claim is what the helper of v0.33 reads, through v1beta1.
type claim = resourceapi.ResourceClaim
