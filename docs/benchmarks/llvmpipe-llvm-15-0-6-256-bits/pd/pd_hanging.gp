set terminal pngcairo size 900,900
set output 'pd_hanging.png'
set multiplot layout 2,1 title '100 x 100 network, cloth hanging from two corners (figure 4)\nllvmpipe (LLVM 15.0.6, 256 bits)'
set logscale y
set grid
set xlabel 'frame'
set ylabel 'error (m^2)'
set format y '10^{%T}'
set key right top
set title '11 iterations per frame'
plot 'pd_hanging.dat' index 0 using 1:2 with lines lw 2 title 'red-black Gauss-Seidel', 'pd_hanging.dat' index 1 using 1:2 with lines lw 2 title 'Jacobi', 'pd_hanging.dat' index 2 using 1:2 with lines lw 2 title 'Chebyshev Jacobi', 'pd_hanging.dat' index 3 using 1:2 with lines lw 2 title 'serial Gauss-Seidel (CPU)'
set title 'time budget of 12 ms per frame (iterations in brackets)'
plot 'pd_hanging.dat' index 4 using 1:2 with lines lw 2 title 'red-black Gauss-Seidel (11)', 'pd_hanging.dat' index 5 using 1:2 with lines lw 2 title 'Jacobi (7)', 'pd_hanging.dat' index 6 using 1:2 with lines lw 2 title 'Chebyshev Jacobi (6)', 'pd_hanging.dat' index 7 using 1:2 with lines lw 2 title 'serial Gauss-Seidel (CPU) (36)'
unset multiplot
