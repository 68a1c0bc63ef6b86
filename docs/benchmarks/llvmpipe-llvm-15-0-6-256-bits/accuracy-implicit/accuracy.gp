set terminal pngcairo size 900,550
set output 'accuracy.png'
set title 'GPBD Gauss-Seidel cantilever at rest, llvmpipe (LLVM 15.0.6, 256 bits)'
set logscale xy
set grid
set xlabel 'element sweeps per step (substeps x iterations)'
set ylabel '|tip sag / exact sag - 1|'
set key outside right
plot 'accuracy.dat' index 0 using 1:($6 == 0 && $2 == 8 ? abs($4) : 1/0) with points pt 7 ps 1.6 lc 1 title '99 vertices, 8 x k', '' index 0 using 1:($6 == 0 && $3 == 1 ? abs($4) : 1/0) with points pt 5 ps 1.6 lc 1 title '99 vertices, k x 1', 'accuracy.dat' index 1 using 1:($6 == 0 && $2 == 8 ? abs($4) : 1/0) with points pt 7 ps 1.6 lc 2 title '525 vertices, 8 x k', '' index 1 using 1:($6 == 0 && $3 == 1 ? abs($4) : 1/0) with points pt 5 ps 1.6 lc 2 title '525 vertices, k x 1', 'accuracy.dat' index 2 using 1:($6 == 0 && $2 == 8 ? abs($4) : 1/0) with points pt 7 ps 1.6 lc 3 title '3321 vertices, 8 x k', '' index 2 using 1:($6 == 0 && $3 == 1 ? abs($4) : 1/0) with points pt 5 ps 1.6 lc 3 title '3321 vertices, k x 1'
set output 'accuracy-cost.png'
set title 'Cantilever at rest: error against cost, llvmpipe (LLVM 15.0.6, 256 bits)'
set xlabel 'GPU ms per step'
plot 'accuracy.dat' index 0 using 7:($6 == 0 ? abs($4) : 1/0) with points pt 7 ps 1.6 lc 1 title '99 vertices, GPBD Gauss-Seidel', '' index 0 using 7:($6 == 2 ? abs($4) : 1/0) with points pt 9 ps 1.8 lc 1 title '99 vertices, implicit PCG', 'accuracy.dat' index 1 using 7:($6 == 0 ? abs($4) : 1/0) with points pt 7 ps 1.6 lc 2 title '525 vertices, GPBD Gauss-Seidel', '' index 1 using 7:($6 == 2 ? abs($4) : 1/0) with points pt 9 ps 1.8 lc 2 title '525 vertices, implicit PCG', 'accuracy.dat' index 2 using 7:($6 == 0 ? abs($4) : 1/0) with points pt 7 ps 1.6 lc 3 title '3321 vertices, GPBD Gauss-Seidel', '' index 2 using 7:($6 == 2 ? abs($4) : 1/0) with points pt 9 ps 1.8 lc 3 title '3321 vertices, implicit PCG'
