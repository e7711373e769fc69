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
		packRows(panel, rows, a[(ic+ir)*lda+pc:], lda, rows, kc)
	}
}

// packRows transposes rows×kc elements of a row-major source (stride lda)
// into dst, k-major with stride ds: dst[p*ds+i] = src[i*lda+p]. Four rows at
// a time (six or eight for the common panel heights when ds == rows), so
// each k step writes one run of consecutive elements and the bounds checks
// are hoisted out of the loop.
func packRows[T float](dst []T, ds int, src []T, lda, rows, kc int) {
	row := func(i int) []T { return src[i*lda : i*lda+kc] }
	switch {
	case rows == 6 && ds == 6:
		r0, r1, r2, r3, r4, r5 := row(0), row(1), row(2), row(3), row(4), row(5)
		dst = dst[:6*kc]
		for p := range r0 {
			q := dst[p*6 : p*6+6]
			q[0], q[1], q[2], q[3], q[4], q[5] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p]
		}
		return
	case rows == 8 && ds == 8:
		r0, r1, r2, r3, r4, r5, r6, r7 := row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7)
		dst = dst[:8*kc]
		for p := range r0 {
			q := dst[p*8 : p*8+8]
			q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p], r6[p], r7[p]
		}
		return
	}
	i := 0
	for ; i+4 <= rows; i += 4 {
		r0, r1, r2, r3 := row(i), row(i+1), row(i+2), row(i+3)
		d := dst[i:]
		for p := range r0 {
			q := d[p*ds : p*ds+4]
			q[0], q[1], q[2], q[3] = r0[p], r1[p], r2[p], r3[p]
		}
	}
	for ; i < rows; i++ {
		r := row(i)
		d := dst[i:]
		for p, v := range r {
			d[p*ds] = v
		}
	}
}

// packB copies the block B(pc:pc+kc, jc:jc+nc) into dst as panels of nr
// columns, each kc×nr row-major with the columns past nc zeroed: panel q
// starts at q*kc*nr, the layout the micro-kernels read with ldb = nr.
func packB[T float](dst, b []T, ldb int, transB bool, pc, kc, jc, nc, nr int) {
	panels := (nc + nr - 1) / nr
	if !transB && nc < nr {
		// One narrow panel (a classifier's few columns): zeroed once, then
		// each row's columns copied, without a clear per row.
		panel := dst[:kc*nr]
		clear(panel)
		for p := 0; p < kc; p++ {
			copy(panel[p*nr:p*nr+nc], b[(pc+p)*ldb+jc:])
		}
		return
	}
	if !transB {
		// Row by row, so that B is read sequentially; each row scatters one
		// run of nr elements into every panel.
		full := nc / nr
		for p := 0; p < kc; p++ {
			src := b[(pc+p)*ldb+jc:]
			src = src[:nc]
			for q := 0; q < full; q++ {
				copy(dst[q*kc*nr+p*nr:q*kc*nr+p*nr+nr], src[q*nr:])
			}
			if full < panels {
				row := dst[full*kc*nr+p*nr : full*kc*nr+p*nr+nr]
				n := copy(row, src[full*nr:])
				clear(row[n:])
			}
		}
		return
	}
	// B(p,j) = b[j*ldb+p]: column j of a panel is a run of row j+… of b.
	// Transposed in blocks of transposeBlock k steps, so that the block of
	// the panel being written (and the runs being read) stay in L1; column by
	// column over all of K, every store would miss.
	for jr := 0; jr < nc; jr += nr {
		cols := min(nr, nc-jr)
		panel := dst[(jr/nr)*kc*nr : (jr/nr+1)*kc*nr]
		if cols < nr {
			clear(panel)
		}
		for p0 := 0; p0 < kc; p0 += transposeBlock {
			dst, src, n := panel[p0*nr:], b[(jc+jr)*ldb+pc+p0:], min(transposeBlock, kc-p0)
			if !transposeRows(dst, nr, src, ldb, cols, n) {
				packRows(dst, nr, src, ldb, cols, n)
			}
		}
	}
}

// transposeBlock is the k extent of the blocks packB transposes at once.
const transposeBlock = 64

// transposeRows is packRows through the transpose kernels where T is
// float32 and the block is at least one of their strips in each direction
// (the vector transpose is several times faster than packRows' scalar
// moves); it reports whether it did the work.
func transposeRows[T float](dst []T, ds int, src []T, lda, rows, kc int) bool {
	d, ok := any(dst).([]float32)
	if !ok {
		return false
	}
	k := kernels().transpose
	if k.strip == nil || rows < k.width || kc < k.width {
		return false
	}
	transposeStrided(d, ds, any(src).([]float32), lda, rows, kc)
	return true
}
