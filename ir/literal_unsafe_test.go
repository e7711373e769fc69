package ir

import "unsafe"

func unsafePointerAt(l *Literal, i int) unsafe.Pointer {
	return unsafe.Pointer(&l.data[i*l.shape.Elem.ByteSize()])
}

// unsafePointerAt2 points at part k (of size partSize) of element i.
func unsafePointerAt2(l *Literal, i, k, partSize int) unsafe.Pointer {
	return unsafe.Pointer(&l.data[i*l.shape.Elem.ByteSize()+k*partSize])
}
