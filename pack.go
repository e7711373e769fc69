package kiln

// packA copies the block A(ic:ic+mc, pc:pc+kc) into dst as panels of mr rows
// (the last one may be shorter), each k-major: panel q starts at q*mr*kc and
// holds A(ic+q*mr+i, pc+p) at p*rows+i, the layout the k-major micro-kernels
// read with lda = rows.
func packA[T float](dst, a []T, lda int, transA bool, ic, mc, pc, kc, mr int) {
	for ir := 0; ir < mc; ir += mr {
		rows := min(mr, mc-ir)
		panel := dst[ir*kc : ir*kc+rows*kc]
		if transA {
			// A(i,p) = a[p*lda+i]: each source row is one k step of the panel.
			for p := 0; p < kc; p++ {
				copy(panel[p*rows:p*rows+rows], a[(pc+p)*lda+ic+ir:])
			}
			continue
		}
		for i := 0; i < rows; i++ {
			src := a[(ic+ir+i)*lda+pc:]
			src = src[:kc]
			dst := panel[i:]
			for p, v := range src {
				dst[p*rows] = v
			}
		}
	}
}

// packB copies the block B(pc:pc+kc, jc:jc+nc) into dst as panels of nr
// columns, each kc×nr row-major with the columns past nc zeroed: panel q
// starts at q*kc*nr, the layout the micro-kernels read with ldb = nr.
func packB[T float](dst, b []T, ldb int, transB bool, pc, kc, jc, nc, nr int) {
	for jr := 0; jr < nc; jr += nr {
		cols := min(nr, nc-jr)
		panel := dst[(jr/nr)*kc*nr : (jr/nr+1)*kc*nr]
		if !transB {
			for p := 0; p < kc; p++ {
				row := panel[p*nr : p*nr+nr]
				copy(row[:cols], b[(pc+p)*ldb+jc+jr:])
				clear(row[cols:])
			}
			continue
		}
		// B(p,j) = b[j*ldb+p]: each source row is one column of the panel.
		if cols < nr {
			clear(panel)
		}
		for j := 0; j < cols; j++ {
			src := b[(jc+jr+j)*ldb+pc:]
			src = src[:kc]
			dst := panel[j:]
			for p, v := range src {
				dst[p*nr] = v
			}
		}
	}
}
