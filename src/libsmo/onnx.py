"""Export of libsmo's estimators to ONNX, through skl2onnx's own SVM converters.

libsmo's SVC, NuSVC, SVR, NuSVR and OneClassSVM carry scikit-learn's fitted attributes
(`support_vectors_`, `dual_coef_`, `intercept_`, `probA_`, `probB_`, `n_support_`,
`classes_`, and the resolved gamma as `_gamma`), which are what skl2onnx's converters of
scikit-learn's SVMs read. `to_onnx` registers each libsmo class under the alias
skl2onnx gives the scikit-learn class of the same model ("SklearnSVC", "SklearnSVR",
"SklearnOneClassSVM"), with that class's parser, and converts: onnxruntime then
computes the same labels, probabilities and decision values as the estimator, to the
float32 arithmetic of ONNX's SVM operators.

skl2onnx and onnxruntime are an optional extra: ``pip install "libsmo[onnx]"``.
"""

__all__ = ["register_converters", "to_onnx"]

# libsmo's class name -> the scikit-learn class whose skl2onnx registration it shares
_SKLEARN_TWINS = {"SVC": "SVC", "NuSVC": "NuSVC", "SVR": "SVR", "NuSVR": "NuSVR",
                  "OneClassSVM": "OneClassSVM"}


def _skl2onnx():
    try:
        import skl2onnx
    except ImportError as exc:
        raise ImportError("libsmo.onnx needs skl2onnx (and onnxruntime to run the "
                          "models): pip install \"libsmo[onnx]\"") from exc
    return skl2onnx


def register_converters():
    """Register libsmo's five SVM estimators with skl2onnx.

    Each libsmo class gets the alias, shape calculator, converter and parser of
    scikit-learn's own SVC, NuSVC, SVR, NuSVR or OneClassSVM. Called by `to_onnx`;
    call it yourself to convert a scikit-learn Pipeline that holds a libsmo estimator
    with `skl2onnx.to_onnx`. Registering twice does nothing more.

    See Also
    --------
    to_onnx : Registers, then converts one fitted estimator.

    Examples
    --------
    >>> import libsmo.onnx
    >>> libsmo.onnx.register_converters()
    """
    _skl2onnx()
    from skl2onnx._parse import sklearn_parsers_map, update_registered_parser
    from skl2onnx._supported_operators import sklearn_operator_name_map
    from sklearn import svm

    from libsmo.estimators import _classes

    for ours, theirs in _SKLEARN_TWINS.items():
        ours, theirs = getattr(_classes, ours), getattr(svm, theirs)
        sklearn_operator_name_map[ours] = sklearn_operator_name_map[theirs]
        if theirs in sklearn_parsers_map:   # the classifiers' (labels, probabilities)
            update_registered_parser(ours, sklearn_parsers_map[theirs])


def to_onnx(estimator, X_sample, *, options=None, target_opset=None):
    """A fitted libsmo estimator as an ONNX model (skl2onnx's `ModelProto`).

    The estimator's fitted attributes go through skl2onnx's converter of the
    scikit-learn SVM of the same kind, so that onnxruntime computes the estimator's
    labels, probabilities and decision values in ONNX's float32 SVM operators.

    Parameters
    ----------
    estimator : fitted SVC, NuSVC, SVR, NuSVR or OneClassSVM
        With a named kernel ("linear", "poly", "rbf", "sigmoid"): ONNX's SVM operators
        have no precomputed or callable kernels.
    X_sample : array-like of shape (n_samples, n_features)
        A few rows of input, from which skl2onnx takes the input's width and type
        (float32 rows give a float32 input, float64 rows a float64 input).
    options : dict, optional
        The skl2onnx converter options for the estimator, e.g. ``{"zipmap": False}`` (a
        classifier's probabilities as one tensor, not a list of dicts) or
        ``{"raw_scores": True}`` (decision values instead of probabilities: for two
        classes the columns -d and d). With float64 rows "zipmap" defaults to False,
        as onnxruntime's ZipMap takes float32 only.
    target_opset : int, optional
        The skl2onnx target opset (default: its newest).

    Returns
    -------
    onnx.ModelProto
        Input ``X``; outputs ``label`` and ``probabilities`` (classifiers with
        zipmap=False; skl2onnx's default ZipMap gives ``output_label`` and
        ``output_probability``, a list of dicts), ``variable`` (regressions),
        ``label`` and ``scores`` (OneClassSVM).

    Raises
    ------
    TypeError
        Not one of the five estimators, or a precomputed or callable kernel.
    ImportError
        skl2onnx is not installed.

    See Also
    --------
    register_converters : The registration alone, for pipelines.

    Examples
    --------
    >>> import numpy as np, libsmo, libsmo.onnx
    >>> X = np.array([[0., 0.], [1., 1.], [1., 0.], [0., 1.]], dtype=np.float32)
    >>> clf = libsmo.SVC(kernel="linear").fit(X, [0, 1, 1, 0])
    >>> onx = libsmo.onnx.to_onnx(clf, X, options={"zipmap": False})
    >>> [output.name for output in onx.graph.output]
    ['label', 'probabilities']
    """
    skl2onnx = _skl2onnx()
    import numpy as np

    from libsmo.estimators._sklearn_compat import check_is_fitted

    if type(estimator).__name__ not in _SKLEARN_TWINS or not type(
            estimator).__module__.startswith("libsmo."):
        raise TypeError("to_onnx converts libsmo's SVC, NuSVC, SVR, NuSVR and "
                        f"OneClassSVM, not {type(estimator).__name__}")
    check_is_fitted(estimator)
    if callable(estimator.kernel) or estimator.kernel == "precomputed":
        raise TypeError("ONNX's SVM operators compute the linear, poly, rbf and sigmoid "
                        f"kernels, not kernel={estimator.kernel!r}")
    register_converters()
    X_sample = np.asarray(X_sample)
    if X_sample.dtype not in (np.float32, np.float64):
        X_sample = X_sample.astype(np.float32)
    options = dict(options or {})
    if X_sample.dtype == np.float64 and hasattr(estimator, "classes_"):
        # onnxruntime's ZipMap takes float32 probabilities only
        options.setdefault("zipmap", False)
    return skl2onnx.to_onnx(estimator, X_sample[:1],
                            options={id(estimator): options} if options else None,
                            target_opset=target_opset)
