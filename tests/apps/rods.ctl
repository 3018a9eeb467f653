; A square lattice of dielectric rods in air: TM bands along the edge of the
; Brillouin zone (MPB), for mpidbg's apps tests (tests/integration/cases/apps.sh).
(set! num-bands 4)
(set! k-points (list (vector3 0 0 0) (vector3 0.5 0 0) (vector3 0.5 0.5 0)))
(set! k-points (interpolate 2 k-points))
(set! geometry (list (make cylinder (center 0 0 0) (radius 0.2) (height infinity)
                           (material (make dielectric (epsilon 12))))))
(set! geometry-lattice (make lattice (size 1 1 no-size)))
(set! resolution 32)
(run-tm)
