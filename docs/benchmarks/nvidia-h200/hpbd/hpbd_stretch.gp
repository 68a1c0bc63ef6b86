set terminal pngcairo size 800,560
set output '/work/main/docs/benchmarks/nvidia-h200/hpbd/hpbd_stretch.png'
set logscale xy
set xlabel 'GPU ms per step'
set ylabel 'stretch: mean elongation over the last 60 steps'
set grid
set key right top
set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05
set title 'HPBD figure 7: 77 x 77 cloth, stretch against cost'
plot '/work/main/docs/benchmarks/nvidia-h200/hpbd/hpbd_stretch.dat' index 0 using 1:2 with linespoints title 'XPBD Gauss-Seidel (iterations labelled)', '' index 0 using 1:2:(sprintf('%d', $3)) with labels offset 1.2,0.8 notitle, '/work/main/docs/benchmarks/nvidia-h200/hpbd/hpbd_stretch.dat' index 1 using 1:2 with points pt 7 ps 1.5 title 'HPBD, 5 levels, 2 iterations'
