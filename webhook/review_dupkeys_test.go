package webhook

import "testing"

// TestFastAdmissionDecodingRefusesRepeatedKeys: repeated members: encoding/json merges a repeated object member into what
// it decoded before (and RawExtension ignores a later null); the one-pass
// decoding keeps the last value. It must refuse such reviews.
func TestFastAdmissionDecodingRefusesRepeatedKeys(t *testing.T) {
	const h = `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1",`
	for _, b := range []string{
		h + `"request":{"operation":"CREATE","object":{"a":1}},"request":{"uid":"u"}}`,
		h + `"request":{"uid":"u","userInfo":{"username":"a"},"userInfo":{"uid":"b"}}}`,
		h + `"request":{"uid":"u","userInfo":{"extra":{"a":["x"]},"extra":{"b":["y"]}}}}`,
		h + `"request":{"uid":"u","kind":{"group":"g"},"kind":{"kind":"K"}}}`,
		h + `"request":{"uid":"u","options":{"a":1},"options":null}}`,
		h + `"request":{"uid":"u","object":{"a":1},"object":null}}`,
	} {
		if r, ok := decodeCanonicalAdmissionReview([]byte(b), 64); ok {
			compareAdmissionDecodings(t, []byte(b), r)
		}
	}
}
