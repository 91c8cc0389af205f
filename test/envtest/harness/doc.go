// Package harness runs a real kube-apiserver and etcd (controller-runtime
// envtest) with claimbridge's CRDs and admission webhooks installed, pointed at
// a claimbridge server on 127.0.0.1, for the envtest suites under test/envtest.
//
// A suite starts one environment in TestMain and shares it:
//
//	var env *harness.Env
//
//	func TestMain(m *testing.M) { os.Exit(harness.Main(m, harness.Options{}, &env)) }
//
// or, in a single test, env := harness.StartT(t, harness.Options{}).
//
// What Start does, in order:
//
//  1. checks KUBEBUILDER_ASSETS (kube-apiserver and etcd; or, with
//     Options.Assets, an older release's directory such as
//     ENVTEST_ASSETS_1_30, whose binary and running apiserver must report
//     that release) and KUSTOMIZE: a missing or unusable one is an error that
//     says to run `make envtest-assets`, never a skip;
//  2. writes a test CA and a serving certificate for 127.0.0.1, ::1 and
//     localhost into a temporary cert dir (tls.crt, tls.key, ca.crt) with
//     webhook.WriteCertificates, the generator `claimbridge serve` uses;
//  3. starts the control plane;
//  4. starts the claimbridge server through Options.StartServer (default:
//     InProcessServer, the webhook package in this process) on a free port;
//  5. installs the CRDs rendered from config/crd (`$KUSTOMIZE build
//     config/crd`) with spec.conversion.webhook.clientConfig set to
//     https://127.0.0.1:<port>/convert and the test CA, and waits until both
//     are Established and all three versions are in discovery;
//  6. installs the ValidatingWebhookConfiguration and the
//     MutatingWebhookConfiguration rendered from config/webhook with the same
//     rules, their clientConfig set to https://127.0.0.1:<port>/validate and
//     /default and the test CA.
//
// The CRDs are installed by the harness and not by envtest's
// CRDInstallOptions, which rewrites spec.conversion for kinds that are not
// controller-runtime convertibles in the scheme.
//
// Env.StopServer and Env.StartServer stop the server (its port then refuses
// connections) and start it again on the same port with the same certificate,
// for an outage of the webhook.
//
// If any step fails, everything already started is stopped before Start
// returns. Env.Stop is also run on SIGINT, SIGTERM and SIGHUP, and shortly
// before the `go test -timeout` deadline, because envtest starts kube-apiserver
// and etcd in their own process group, where a dying test binary would leave
// them running.
package harness
