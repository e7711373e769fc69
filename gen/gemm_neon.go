package main

// generateGEMMARM64 writes the NEON GEMM kernels.
func generateGEMMARM64() ([]outFile, error) { return nil, nil }
