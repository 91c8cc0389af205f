package driver

func old(c interface {
	ResourceV1alpha3() interface{ ResourceClaims(string) int }
}) int {
	return c.ResourceV1alpha3().ResourceClaims("ns")
}
