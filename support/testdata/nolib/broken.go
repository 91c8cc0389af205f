package main

func broken( {
	cs.ResourceV1beta2().DeviceClasses().List(nil, nil)
}
