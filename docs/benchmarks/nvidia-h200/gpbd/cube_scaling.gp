set terminal pngcairo size 800,560
set output '/work/main/docs/benchmarks/nvidia-h200/gpbd/cube_scaling.png'
set logscale xy
set xlabel 'tetrahedra'
set ylabel 'GPU ms per GPBD iteration (solve)'
set grid
set key left top
set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05
set title 'GPBD cube impact: cost against size'
plot '/work/main/docs/benchmarks/nvidia-h200/gpbd/cube_scaling.dat' index 0 with linespoints title 'GPBD Gauss-Seidel', '/work/main/docs/benchmarks/nvidia-h200/gpbd/cube_scaling.dat' index 1 with linespoints title 'GPBD Jacobi', '/work/main/docs/benchmarks/nvidia-h200/gpbd/cube_scaling.dat' index 2 with points pt 7 ps 1.5 title 'paper, RTX 4080 (whole step / 3)'
