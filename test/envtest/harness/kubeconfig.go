package harness

import (
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// WriteContexts writes a kubeconfig to path with a context of each name
// in configs (control planes' admin configurations, as envtest returns
// them: a client certificate), each with its own cluster and user. It has
// no current context: the commands under test name the one they use.
func WriteContexts(path string, configs map[string]*rest.Config) error {
	kc := clientcmdapi.NewConfig()
	for name, c := range configs {
		kc.Clusters[name] = &clientcmdapi.Cluster{Server: c.Host, CertificateAuthorityData: c.CAData}
		kc.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: c.CertData, ClientKeyData: c.KeyData}
		kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	}
	return clientcmd.WriteToFile(*kc, path)
}
