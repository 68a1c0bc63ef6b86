set terminal pngcairo size 800,560
set output '/work/main/docs/benchmarks/nvidia-h100-80gb-hbm3/scaling.png'
set logscale xy
set xlabel 'particles'
set ylabel 'GPU ms per step (8 substeps x 1 iteration)'
set grid
set key left top
set title 'hanging cloth: cost against size'
plot '/work/main/docs/benchmarks/nvidia-h100-80gb-hbm3/scaling.dat' index 0 with linespoints title 'XPBD Gauss-Seidel (slope 0.06)', '/work/main/docs/benchmarks/nvidia-h100-80gb-hbm3/scaling.dat' index 1 with linespoints title 'XPBD Jacobi (slope 0.34)'
