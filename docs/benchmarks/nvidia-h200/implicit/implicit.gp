set terminal pngcairo size 1200,500
set output 'implicit.png'
set multiplot layout 1,2 title 'multigrid against modified PCG to 1e-04, NVIDIA H200'
set logscale xy
set grid
set xlabel 'particles'
set ylabel 'solve ms per step'
set key left top
plot 'implicit.dat' index 0 using 1:2 with linespoints lw 2 title 'MG, swinging', '' index 0 using 1:3 with linespoints lw 2 title 'MPCG, swinging', '' index 1 using 1:2 with linespoints lw 2 title 'MG, sphere', '' index 1 using 1:3 with linespoints lw 2 title 'MPCG, sphere'
unset logscale y
set ylabel 'speed-up of MG'
plot 'implicit.dat' index 0 using 1:4 with linespoints lw 2 title 'swinging', '' index 1 using 1:4 with linespoints lw 2 title 'sphere'
unset multiplot
