set terminal pngcairo size 900,550
set output 'accuracy.png'
set title 'GPBD Gauss-Seidel cantilever at rest, llvmpipe (LLVM 15.0.6, 256 bits)'
set logscale xy
set grid
set xlabel 'element sweeps per step (substeps x iterations)'
set ylabel '|tip sag / exact sag - 1|'
set key outside right
plot 'accuracy.dat' index 0 using 1:($2 == 8 ? abs($4) : 1/0) with points pt 7 ps 1.6 lc 1 title '99 vertices, 8 x k', '' index 0 using 1:($3 == 1 ? abs($4) : 1/0) with points pt 5 ps 1.6 lc 1 title '99 vertices, k x 1', 'accuracy.dat' index 1 using 1:($2 == 8 ? abs($4) : 1/0) with points pt 7 ps 1.6 lc 2 title '525 vertices, 8 x k', '' index 1 using 1:($3 == 1 ? abs($4) : 1/0) with points pt 5 ps 1.6 lc 2 title '525 vertices, k x 1', 'accuracy.dat' index 2 using 1:($2 == 8 ? abs($4) : 1/0) with points pt 7 ps 1.6 lc 3 title '3321 vertices, 8 x k', '' index 2 using 1:($3 == 1 ? abs($4) : 1/0) with points pt 5 ps 1.6 lc 3 title '3321 vertices, k x 1'
