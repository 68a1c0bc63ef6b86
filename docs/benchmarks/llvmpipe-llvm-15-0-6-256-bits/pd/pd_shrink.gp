set terminal pngcairo size 900,900
set output 'pd_shrink.png'
set multiplot layout 2,1 title '100 x 100 network, stretched network shrinking back (figure 3)\nllvmpipe (LLVM 15.0.6, 256 bits)'
set logscale y
set grid
set xlabel 'frame'
set ylabel 'error (m^2)'
set format y '10^{%T}'
set key right top
set title '11 iterations per frame'
plot 'pd_shrink.dat' index 0 using 1:2 with lines lw 2 title 'red-black Gauss-Seidel', 'pd_shrink.dat' index 1 using 1:2 with lines lw 2 title 'Jacobi', 'pd_shrink.dat' index 2 using 1:2 with lines lw 2 title 'Chebyshev Jacobi', 'pd_shrink.dat' index 3 using 1:2 with lines lw 2 title 'serial Gauss-Seidel (CPU)'
set title 'time budget of 18.1 ms per frame (iterations in brackets)'
plot 'pd_shrink.dat' index 4 using 1:2 with lines lw 2 title 'red-black Gauss-Seidel (11)', 'pd_shrink.dat' index 5 using 1:2 with lines lw 2 title 'Jacobi (9)', 'pd_shrink.dat' index 6 using 1:2 with lines lw 2 title 'Chebyshev Jacobi (8)', 'pd_shrink.dat' index 7 using 1:2 with lines lw 2 title 'serial Gauss-Seidel (CPU) (55)'
unset multiplot
