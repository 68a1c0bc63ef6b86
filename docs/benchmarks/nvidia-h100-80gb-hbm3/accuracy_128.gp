set terminal pngcairo size 1000,900
set output '/work/main/docs/benchmarks/nvidia-h100-80gb-hbm3/accuracy_128.png'
set logscale xy
set xlabel 'time per step (ms): GPU for sinew, CPU wall for others'
set ylabel 'RMS stretch strain, mean over the 2nd second'
set key below maxcols 2
set grid
set title 'hanging cloth 128x128: error against cost'
plot '/work/main/docs/benchmarks/nvidia-h100-80gb-hbm3/accuracy_128.dat' index 0 with linespoints title 'sinew GPU xpbd-gs, substeps sweep', '/work/main/docs/benchmarks/nvidia-h100-80gb-hbm3/accuracy_128.dat' index 1 with linespoints title 'sinew GPU xpbd-gs, iterations sweep', '/work/main/docs/benchmarks/nvidia-h100-80gb-hbm3/accuracy_128.dat' index 2 with linespoints title 'sinew GPU xpbd-jacobi, substeps sweep', '/work/main/docs/benchmarks/nvidia-h100-80gb-hbm3/accuracy_128.dat' index 3 with linespoints title 'sinew GPU xpbd-jacobi, iterations sweep'
