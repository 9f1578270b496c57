"""The works the course cites, each under a short key.

Docstrings and lessons cite a source by its key in square brackets, e.g.
``[SO-quadtree]`` or ``[Guttman1984]``, and every lesson ends with a Sources
list that spells out the keys it uses::

    >>> from lessons_lib.sources import cite
    >>> print(cite("Guttman1984"))
    [Guttman1984] A. Guttman. R-trees: a dynamic index structure for spatial searching. Proceedings of ACM SIGMOD 1984, pp. 47-57. https://doi.org/10.1145/602259.602266

A test checks that every key cited anywhere in the library, the lessons and
TEACHING.md is listed here.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Source", "SOURCES", "cite", "sources_list"]


@dataclass(frozen=True)
class Source:
    """One cited work: who, what, when, where to read it, and what the course takes from it."""

    key: str
    authors: str
    title: str
    year: str
    where: str
    url: str = ""
    used_for: str = ""

    def __str__(self) -> str:
        tail = f" {self.url}" if self.url else ""
        where = f" {self.where}" if self.where else ""
        return f"[{self.key}] {self.authors}. {self.title}.{where}{tail}"


_ALL = [
    # -- the three sources the course is written from --------------------------------------
    Source("SO-quadtree", "Dragon Energy and others (answers); the question by a Stack Overflow user",
           "Efficient (and well explained) implementation of a Quadtree for 2D collision detection",
           "2017-2018", "Stack Overflow question 41946007 and its answers (also mirrored with their C/C++ code "
           "in the public domain).",
           "https://stackoverflow.com/questions/41946007/efficient-and-well-explained-implementation-of-a-quadtree-for-2d-collision-det",
           "the compact quadtree (8-byte nodes, element nodes, free lists, deferred cleanup), loose quadtrees, "
           "the loose/tight double grid, uniform-size agents, the small-list and int-list ideas, the "
           "agent-simulation figures"),
    Source("magley2026", "magley", "Algorithms and data structures in the broad phase (in Serbian: "
           "Алгоритми и структуре података у широкој фази)", "2026",
           "Blog article with a benchmark, 26 February 2026; its code is the repository magley/broad-phase "
           "(D language).",
           "https://magley.github.io/posts/0002_broadphase/",
           "metric spaces, the naive and two-cluster approaches, sweep and prune, grid hashing, the trees, bulk "
           "loading, and the five benchmark scenes"),
    Source("magley-code", "magley", "broad-phase: implementations of broad-phase algorithms and the "
           "article's benchmark", "2026", "GitHub repository; files cited by path, e.g. "
           "source/impl/quad_tree.d.", "https://github.com/magley/broad-phase",
           "where the lessons check a claim about the article's code"),
    Source("gamedev-lecture", "anonymous (course notes)", "Spatial data structures (in Russian: "
           "Пространственные структуры данных), a game-development lecture on grids, quadtrees and "
           "spatial hashing", "n.d.", "Lecture notes with Python and C# examples; no public address known.", "",
           "the O(n^2) wall in frames per second, the grid with a 3 x 3 neighbourhood, the quadtree as a "
           "lecture presents it, spatial hashing with large-prime constants"),
    # -- papers and books ----------------------------------------------------------------------
    Source("Guttman1984", "A. Guttman", "R-trees: a dynamic index structure for spatial searching", "1984",
           "Proceedings of ACM SIGMOD 1984, pp. 47-57.", "https://doi.org/10.1145/602259.602266",
           "ChooseLeaf, the exhaustive, quadratic and linear splits, CondenseTree"),
    Source("Beckmann1990", "N. Beckmann, H.-P. Kriegel, R. Schneider, B. Seeger",
           "The R*-tree: an efficient and robust access method for points and rectangles", "1990",
           "Proceedings of ACM SIGMOD 1990, pp. 322-331.", "https://doi.org/10.1145/93597.98741",
           "ChooseSubtree by overlap, the margin-then-area split, forced reinsertion"),
    Source("Roussopoulos1985", "N. Roussopoulos, D. Leifker",
           "Direct spatial search on pictorial databases using packed R-trees", "1985",
           "Proceedings of ACM SIGMOD 1985, pp. 17-31.", "https://doi.org/10.1145/318898.318900",
           "packing sorted by x (Nearest-X)"),
    Source("Roussopoulos1995", "N. Roussopoulos, S. Kelley, F. Vincent", "Nearest neighbor queries", "1995",
           "Proceedings of ACM SIGMOD 1995, pp. 71-79.", "https://doi.org/10.1145/223784.223794",
           "k nearest neighbours by branch and bound in a tree, nearest child first"),
    Source("Leutenegger1997", "S. T. Leutenegger, M. A. Lopez, J. Edgington",
           "STR: a simple and efficient algorithm for R-tree packing", "1997",
           "Proceedings of the 13th International Conference on Data Engineering (ICDE), pp. 497-506.",
           "https://doi.org/10.1109/ICDE.1997.582015", "Sort-Tile-Recursive packing"),
    Source("Kamel1993", "I. Kamel, C. Faloutsos", "On packing R-trees", "1993",
           "Proceedings of the 2nd International Conference on Information and Knowledge Management (CIKM), "
           "pp. 490-499.", "https://doi.org/10.1145/170088.170403", "packing in Hilbert order"),
    Source("Bentley1975", "J. L. Bentley", "Multidimensional binary search trees used for associative searching",
           "1975", "Communications of the ACM 18(9), pp. 509-517.", "https://doi.org/10.1145/361002.361007",
           "the k-d tree"),
    Source("Cohen1995", "J. D. Cohen, M. C. Lin, D. Manocha, M. Ponamgi",
           "I-COLLIDE: an interactive and exact collision detection system for large-scale environments", "1995",
           "Proceedings of the 1995 Symposium on Interactive 3D Graphics, pp. 189-196.",
           "https://doi.org/10.1145/199404.199437", "sweep and prune kept sorted frame to frame, a persistent pair set"),
    Source("Baraff1992", "D. Baraff", "Dynamic simulation of non-penetrating rigid bodies", "1992",
           "PhD thesis, Cornell University.", "", "sorting interval endpoints to find overlaps (sweep and prune)"),
    Source("Teschner2003", "M. Teschner, B. Heidelberger, M. Müller, D. Pomeranets, M. Gross",
           "Optimized spatial hashing for collision detection of deformable objects", "2003",
           "Proceedings of Vision, Modeling, Visualization (VMV) 2003, pp. 47-54.", "",
           "the hash of a cell by multiplying its coordinates with large odd constants"),
    Source("Ulrich2000", "T. Ulrich", "Loose octrees", "2000", "Game Programming Gems, Charles River Media, "
           "section 4.11.", "", "loose bounds: each node's region enlarged so every element fits one node"),
    Source("Ericson2005", "C. Ericson", "Real-Time Collision Detection", "2005", "Morgan Kaufmann.", "",
           "the broad phase/narrow phase split, grids, hierarchical grids, sweep and prune"),
    Source("Green2008", "S. Green", "Particle simulation using CUDA", "2008",
           "NVIDIA CUDA SDK white paper.",
           "https://developer.download.nvidia.com/assets/cuda/files/particles.pdf",
           "sorting elements by grid cell so that each cell is one contiguous range (the counting-sort grid)"),
    Source("Morton1966", "G. M. Morton",
           "A computer oriented geodetic data base and a new technique in file sequencing", "1966",
           "Technical report, IBM, Ottawa.", "", "the Z-order (Morton code): interleaved coordinate bits"),
    Source("Hilbert1891", "D. Hilbert", "Über die stetige Abbildung einer Linie auf ein Flächenstück", "1891",
           "Mathematische Annalen 38, pp. 459-460.", "https://doi.org/10.1007/BF01199431",
           "the Hilbert curve"),
    Source("Samet1984", "H. Samet", "The quadtree and related hierarchical data structures", "1984",
           "ACM Computing Surveys 16(2), pp. 187-260.", "https://doi.org/10.1145/356924.356930",
           "quadtrees in general"),
    Source("Yu2019", "J. Yu, Z. Zhang, M. Sarwat",
           "Spatial data management in Apache Spark: the GeoSpark perspective and beyond", "2019",
           "GeoInformatica 23, pp. 37-78; the system is now Apache Sedona (https://sedona.apache.org/).",
           "https://doi.org/10.1007/s10707-018-0330-9",
           "the partitioned spatial join of lesson 15: sampled KDB-tree, quadtree and R-tree partitioners"),
    Source("Dittrich2000", "J.-P. Dittrich, B. Seeger",
           "Data redundancy and duplicate detection in spatial join processing", "2000",
           "Proceedings of the 16th International Conference on Data Engineering (ICDE 2000), pp. 535-546.", "",
           "the reference-point rule: each pair reported once by the partition holding a corner of the "
           "intersection"),
    Source("dask-geopandas", "dask-geopandas contributors", "dask-geopandas: parallel GeoPandas with Dask",
           "2024", "Documentation: spatial partitioning (Hilbert and Morton distance, sjoin).",
           "https://dask-geopandas.readthedocs.io/", "the partitioned spatial join of lesson 15"),
    Source("Rocklin2015", "M. Rocklin", "Dask: parallel computation with blocked algorithms and task scheduling",
           "2015", "Proceedings of the 14th Python in Science Conference (SciPy 2015), pp. 126-132.",
           "https://docs.dask.org/", "running the partitioned join on one machine or a cluster"),
    Source("Okabe-Ito", "M. Okabe, K. Ito", "Color Universal Design (CUD): how to make figures and presentations "
           "that are friendly to colorblind people", "2008", "Web page of J*FLY, Japan.",
           "https://jfly.uni-koeln.de/color/", "the course's colour palette (lessons_lib.style)"),
    Source("Catto2019", "E. Catto", "Dynamic bounding volume hierarchies", "2019",
           "Game Developers Conference 2019, physics tutorial (slides).",
           "https://box2d.org/files/ErinCatto_DynamicBVH_GDC2019.pdf",
           "the dynamic AABB tree: fat AABBs, sibling choice by surface area with branch and bound, "
           "refitting, rotations"),
    Source("box2d", "E. Catto and contributors", "Box2D: a 2D physics engine for games", "2024",
           "GitHub repository, MIT licence; the tree is src/dynamic_tree.c (b2DynamicTree_CreateProxy, "
           "b2FindBestSibling, b2RotateNodes, b2DynamicTree_Rebuild).", "https://github.com/erincatto/box2d",
           "the dynamic AABB tree a physics engine ships, and the measurement anchor of its lesson"),
    Source("Bittner2012", "J. Bittner, M. Hapala, V. Havran", "Fast insertion-based optimization of bounding "
           "volume hierarchies", "2012", "Computer Graphics Forum 32(1), pp. 85-100 (2013).",
           "https://doi.org/10.1111/cgf.12000", "insertion by the surface area heuristic with branch and bound"),
    Source("Kopta2012", "D. Kopta, T. Ize, J. Spjut, E. Brunvand, A. Davis, A. Kensler",
           "Fast, effective BVH updates for animated scenes", "2012",
           "Proceedings of the ACM SIGGRAPH Symposium on Interactive 3D Graphics and Games (I3D), pp. 197-204.",
           "https://doi.org/10.1145/2159616.2159649", "tree rotations that lower the surface area locally"),
    Source("MacDonald1990", "J. D. MacDonald, K. S. Booth", "Heuristics for ray tracing using space subdivision",
           "1990", "The Visual Computer 6(3), pp. 153-166.", "https://doi.org/10.1007/BF01911006",
           "the surface area heuristic"),
    Source("natural-earth", "Natural Earth contributors", "Natural Earth: free vector and raster map data", "2024",
           "Public domain map data (countries and populated places, 1:110m).", "https://www.naturalearthdata.com/",
           "the map of lessons 10 and 14"),
]

#: Every source by key.
SOURCES: dict[str, Source] = {s.key: s for s in _ALL}

def cite(key: str) -> str:
    """The full reference of ``key`` as one line; ``KeyError`` naming the key if it is not listed."""
    try:
        return str(SOURCES[key])
    except KeyError:
        raise KeyError(f"no source with key {key!r}; known keys: {', '.join(sorted(SOURCES))}") from None


def sources_list(*keys: str) -> str:
    """Markdown list of the given keys' references (every source when none is given), in the order given."""
    return "\n".join(f"- {cite(k)}" for k in (keys or tuple(SOURCES)))
