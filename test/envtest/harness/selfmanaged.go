package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// What the suites that run `claimbridge serve --cert-mode=self-managed`
// from rendered manifests (test/envtest/selfmanaged, test/envtest/minversion)
// share.

// ServeArgs are the arguments after "serve" of the one container of the one
// Deployment in objs, with $(POD_NAMESPACE) replaced by namespace.
func ServeArgs(objs []*unstructured.Unstructured, namespace string) ([]string, error) {
	deps := OfKind(objs, "Deployment")
	if len(deps) != 1 {
		return nil, fmt.Errorf("%d Deployments rendered, want 1", len(deps))
	}
	containers, _, _ := unstructured.NestedSlice(deps[0].Object, "spec", "template", "spec", "containers")
	if len(containers) != 1 {
		return nil, fmt.Errorf("the Deployment has %d containers, want 1", len(containers))
	}
	container, ok := containers[0].(map[string]interface{})
	if !ok {
		return nil, errors.New("the Deployment's container is not an object")
	}
	raw, _, _ := unstructured.NestedStringSlice(container, "args")
	if len(raw) == 0 || raw[0] != "serve" {
		return nil, fmt.Errorf("the Deployment's args are %q: want serve first", raw)
	}
	var args []string
	for _, a := range raw[1:] {
		args = append(args, strings.ReplaceAll(a, "$(POD_NAMESPACE)", namespace))
	}
	return args, nil
}

// ServiceAccountConfig is admin (a client-certificate configuration)
// impersonating ServiceAccount ns/sa with the groups its token has.
func ServiceAccountConfig(admin *rest.Config, ns, sa string) *rest.Config {
	cfg := rest.CopyConfig(admin)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: fmt.Sprintf("system:serviceaccount:%s:%s", ns, sa),
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
	}
	return cfg
}

// WriteKubeconfig writes cfg's server, CA, client certificate and
// impersonation to path as a kubeconfig file.
func WriteKubeconfig(cfg *rest.Config, path string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["user"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData,
		Impersonate: cfg.Impersonate.UserName, ImpersonateGroups: cfg.Impersonate.Groups,
	}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "user"}
	kc.CurrentContext = "envtest"
	return clientcmd.WriteToFile(*kc, path)
}

// Injection names what a self-managed server injects its CA into.
type Injection struct {
	Secret               types.NamespacedName // holds ca.crt
	CRDs                 []string
	Validating, Mutating string // the webhook configurations' names
}

// CheckCAInjected reports whether both CRDs' conversion webhooks and every
// webhook of both configurations carry exactly the Secret's ca.crt.
func CheckCAInjected(ctx context.Context, c client.Client, in Injection) error {
	var secret corev1.Secret
	if err := c.Get(ctx, in.Secret, &secret); err != nil {
		return err
	}
	ca := secret.Data["ca.crt"]
	if len(ca) == 0 {
		return fmt.Errorf("the Secret %s holds no ca.crt", in.Secret)
	}
	for _, name := range in.CRDs {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := c.Get(ctx, types.NamespacedName{Name: name}, &crd); err != nil {
			return err
		}
		if crd.Spec.Conversion == nil || crd.Spec.Conversion.Webhook == nil || crd.Spec.Conversion.Webhook.ClientConfig == nil {
			return fmt.Errorf("CRD %s has no conversion webhook", name)
		}
		if got := crd.Spec.Conversion.Webhook.ClientConfig.CABundle; !bytes.Equal(got, ca) {
			return fmt.Errorf("CRD %s has caBundle %q, want the Secret's ca.crt", name, got)
		}
	}
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	if err := c.Get(ctx, types.NamespacedName{Name: in.Validating}, &vwc); err != nil {
		return err
	}
	var mwc admissionregistrationv1.MutatingWebhookConfiguration
	if err := c.Get(ctx, types.NamespacedName{Name: in.Mutating}, &mwc); err != nil {
		return err
	}
	if len(vwc.Webhooks) == 0 || len(mwc.Webhooks) == 0 {
		return fmt.Errorf("%d validating and %d mutating webhooks, want some of each", len(vwc.Webhooks), len(mwc.Webhooks))
	}
	for _, w := range vwc.Webhooks {
		if !bytes.Equal(w.ClientConfig.CABundle, ca) {
			return fmt.Errorf("webhook %s has caBundle %q, want the Secret's ca.crt", w.Name, w.ClientConfig.CABundle)
		}
	}
	for _, w := range mwc.Webhooks {
		if !bytes.Equal(w.ClientConfig.CABundle, ca) {
			return fmt.Errorf("mutating webhook %s has caBundle %q, want the Secret's ca.crt", w.Name, w.ClientConfig.CABundle)
		}
	}
	return nil
}

// TokenPolicyMessage is the message with which the self-managed installs'
// ValidatingAdmissionPolicy (charts/claimbridge/templates/tokenpolicy.yaml,
// config/self-managed/token-policy.yaml) refuses claimbridge's
// ServiceAccount a change to an object of kind other than its caBundles.
func TokenPolicyMessage(kind string) string {
	if kind == "CustomResourceDefinition" {
		return "claimbridge's ServiceAccount may change only the conversion webhook's caBundle of a CustomResourceDefinition"
	}
	return "claimbridge's ServiceAccount may change only the webhooks' caBundle of a " + kind
}

// CheckRefusedByTokenPolicy wants err to be the token policy's 403 refusing
// a change to an object of kind.
func CheckRefusedByTokenPolicy(err error, kind string) error {
	message := TokenPolicyMessage(kind)
	var status apierrors.APIStatus
	if err == nil || !errors.As(err, &status) {
		return fmt.Errorf("got %v, want a 403 saying %q", err, message)
	}
	if st := status.Status(); st.Code != http.StatusForbidden || !strings.Contains(st.Message, message) {
		return fmt.Errorf("got %d %s: %s; want a 403 saying %q", st.Code, st.Reason, st.Message, message)
	}
	return nil
}

// WaitForTokenPolicy returns once the token policy refuses sa (a client
// with the install's ServiceAccount's identity) a new label on the
// ValidatingWebhookConfiguration name, which admin reads: policies take
// effect asynchronously, and a server must inject its CA under the policy.
func WaitForTokenPolicy(ctx context.Context, admin, sa client.Client, name string) error {
	var last error
	probe := 0
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		var vwc admissionregistrationv1.ValidatingWebhookConfiguration
		if last = admin.Get(ctx, types.NamespacedName{Name: name}, &vwc); last != nil {
			return false, nil
		}
		probe++ // a new value each time: once set, an unchanged label passes
		if vwc.Labels == nil {
			vwc.Labels = map[string]string{}
		}
		vwc.Labels["probe"] = strconv.Itoa(probe)
		last = sa.Update(ctx, &vwc)
		return CheckRefusedByTokenPolicy(last, "ValidatingWebhookConfiguration") == nil, nil
	})
	if err != nil {
		return fmt.Errorf("the token policy is not enforced: last update of %s as the ServiceAccount: %v", name, last)
	}
	return nil
}

// FreePort is a TCP port on 127.0.0.1 that was free a moment ago. It lies
// below the kernel's ephemeral range (ip_local_port_range), where neither an
// outgoing connection nor a listener on port 0 is given a port: the control
// planes of the packages tested beside this one cannot take it before the
// server that is to listen on it starts, seconds later.
func FreePort() (int, error) {
	ephemeral := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		_, _ = fmt.Sscan(string(b), &ephemeral)
	}
	const lowest = 20000
	var err error
	for range 100 {
		port := lowest + rand.IntN(max(ephemeral-lowest, 1))
		var l net.Listener
		if l, err = net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			return port, l.Close()
		}
	}
	return 0, fmt.Errorf("no free port on 127.0.0.1 between %d and %d: %w", lowest, ephemeral, err)
}
