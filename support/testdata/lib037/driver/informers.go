package driver

import (
	"k8s.io/client-go/informers"
)

func watchSlices(factory informers.SharedInformerFactory) {
	factory.Resource().V1().ResourceSlices().Informer()
}
