set terminal pngcairo size 1400,560
set output 'mgpbd_model.png'
set multiplot layout 1,2 title 'one 10 ms step, shear modulus 1e9 Pa: squashed model; NVIDIA H200'
set logscale xy
set grid
set format y '10^{%L}'
set ylabel '|b| / |b_0|'
set key bottom left
set xlabel 'MGPBD outer iterations, XPBD sweeps'
plot 'mgpbd_model.dat' index 0 using ($1 > 0 ? $1 : 1/0):2 with linespoints lw 2 pt 7 ps 0.5 lc 1 title 'MGPBD, 102018 tets', '' index 1 using 1:2 with linespoints lw 2 dt 2 pt 6 lc 1 title 'XPBD, 102018 tets'
set xlabel 'wall time (s)'
plot 'mgpbd_model.dat' index 0 using ($3 > 0 ? $3 / 1000 : 1/0):2 with linespoints lw 2 pt 7 ps 0.5 lc 1 title 'MGPBD, 102018 tets', '' index 1 using ($3 / 1000):2 with linespoints lw 2 dt 2 pt 6 lc 1 title 'XPBD, 102018 tets'
unset multiplot
