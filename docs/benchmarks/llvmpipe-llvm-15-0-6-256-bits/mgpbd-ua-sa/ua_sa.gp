# The four hierarchies' outer iterations (each folder's mgpbd_model.dat, index 0);
# gnuplot ua_sa.gp in this folder makes ua_sa.png.
set terminal pngcairo size 1400,560
set output 'ua_sa.png'
set multiplot layout 1,2 title 'MGPBD on the flattened ellipsoid, 5 279 tets, mu 1e9 Pa, h 10 ms; llvmpipe (LLVM 15.0.6, 256 bits)'
set logscale y
set grid
set format y '10^{%L}'
set ylabel '|b| / |b_0|'
set key top right
set xlabel 'outer iterations'
plot 'ua-nk0/mgpbd_model.dat' index 0 using 1:2 with linespoints pt 7 ps 0.5 lw 2 title 'UA', \
     'ua-nk2/mgpbd_model.dat' index 0 using 1:2 with linespoints pt 6 ps 0.5 lw 2 title 'UA + near kernel (default)', \
     'sa-nk0/mgpbd_model.dat' index 0 using 1:2 with linespoints pt 5 ps 0.5 lw 2 dt 2 title 'SA', \
     'sa-nk2/mgpbd_model.dat' index 0 using 1:2 with linespoints pt 4 ps 0.5 lw 2 dt 2 title 'SA + near kernel'
set xlabel 'wall time (s)'
plot 'ua-nk0/mgpbd_model.dat' index 0 using ($3/1000):2 with linespoints pt 7 ps 0.5 lw 2 title 'UA', \
     'ua-nk2/mgpbd_model.dat' index 0 using ($3/1000):2 with linespoints pt 6 ps 0.5 lw 2 title 'UA + near kernel (default)', \
     'sa-nk0/mgpbd_model.dat' index 0 using ($3/1000):2 with linespoints pt 5 ps 0.5 lw 2 dt 2 title 'SA', \
     'sa-nk2/mgpbd_model.dat' index 0 using ($3/1000):2 with linespoints pt 4 ps 0.5 lw 2 dt 2 title 'SA + near kernel'
unset multiplot
