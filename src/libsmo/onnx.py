"""Export of libsmo's estimators to ONNX, through skl2onnx's own converters.

libsmo's SVC, NuSVC, SVR, NuSVR and OneClassSVM carry scikit-learn's fitted attributes
(`support_vectors_`, `dual_coef_`, `intercept_`, `probA_`, `probB_`, `n_support_`,
`classes_`, and the resolved gamma as `_gamma`), which are what skl2onnx's converters of
scikit-learn's SVMs read. `to_onnx` registers each libsmo class under the alias
skl2onnx gives the scikit-learn class of the same model ("SklearnSVC", "SklearnSVR",
"SklearnOneClassSVM"), with that class's parser, and converts: onnxruntime then
computes the same labels, probabilities and decision values as the estimator, to the
float32 arithmetic of ONNX's SVM operators.

LinearSVC and LinearSVR go another way: skl2onnx's linear converters tell scikit-learn's
LinearSVC from other linear classifiers by its class (a LinearSVC's scores are not
probabilities), so a libsmo linear estimator is parsed as its scikit-learn twin, a
scikit-learn LinearSVC or LinearSVR holding the same ``coef_``, ``intercept_`` and
``classes_``, and converted as that one (ONNX's LinearClassifier and LinearRegressor).

skl2onnx and onnxruntime are an optional extra: ``pip install "libsmo[onnx]"``.
"""

__all__ = ["register_converters", "to_onnx"]

# libsmo's class name -> the scikit-learn class whose skl2onnx registration it shares
_SKLEARN_TWINS = {"SVC": "SVC", "NuSVC": "NuSVC", "SVR": "SVR", "NuSVR": "NuSVR",
                  "OneClassSVM": "OneClassSVM"}
# libsmo's linear estimators, parsed as a scikit-learn twin (`_linear_twin`)
_LINEAR_TWINS = ("LinearSVC", "LinearSVR")
# the fitted model a twin carries, besides the parameters the two classes share
_LINEAR_FITTED = ("coef_", "intercept_", "classes_", "n_features_in_")


def _skl2onnx():
    try:
        import skl2onnx
    except ImportError as exc:
        raise ImportError("libsmo.onnx needs skl2onnx (and onnxruntime to run the "
                          "models): pip install \"libsmo[onnx]\"") from exc
    return skl2onnx


def register_converters():
    """Register libsmo's seven SVM estimators with skl2onnx.

    SVC, NuSVC, SVR, NuSVR and OneClassSVM get the alias, shape calculator, converter
    and parser of scikit-learn's own class of the same name; LinearSVC and LinearSVR a
    parser that hands skl2onnx their scikit-learn twin (see the module's notes), which
    its own LinearSVC and LinearSVR converters then convert. Called by `to_onnx`; call
    it yourself to convert a scikit-learn Pipeline that holds a libsmo estimator with
    `skl2onnx.to_onnx`. Registering twice does nothing more.

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

    from libsmo.estimators import _classes, _linear

    for ours, theirs in _SKLEARN_TWINS.items():
        ours, theirs = getattr(_classes, ours), getattr(svm, theirs)
        sklearn_operator_name_map[ours] = sklearn_operator_name_map[theirs]
        if theirs in sklearn_parsers_map:   # the classifiers' (labels, probabilities)
            update_registered_parser(ours, sklearn_parsers_map[theirs])
    for name in _LINEAR_TWINS:
        ours = getattr(_linear, name)
        sklearn_operator_name_map[ours] = sklearn_operator_name_map[getattr(svm, name)]
        update_registered_parser(ours, _parse_as_twin)


def _parse_as_twin(scope, model, inputs, custom_parsers=None):
    """skl2onnx's parser for a libsmo LinearSVC or LinearSVR: its scikit-learn twin,
    parsed (and so converted) as scikit-learn's own, with the converter options given
    for the model (by its id or its class) given for the twin, but "zipmap": a
    LinearSVC has no probabilities to zip, and skl2onnx's Pipeline parser gives every
    classifier step zipmap=True, which its LinearSVC converter then refuses (so that
    scikit-learn's LinearSVC in a Pipeline needs options of its own)."""
    from skl2onnx._parse import _parse_sklearn

    twin = _linear_twin(model)
    if scope.options:
        # (a copy: the caller's dict stays as it was)
        options = dict(scope.options)
        for ours, theirs in ((id(model), id(twin)), (type(model), type(twin))):
            if ours in options:
                options[theirs] = {key: value for key, value in options[ours].items()
                                   if key != "zipmap"}
        scope.options = options
    return _parse_sklearn(scope, twin, inputs, custom_parsers=custom_parsers)


def _linear_twin(estimator):
    """A scikit-learn LinearSVC or LinearSVR with `estimator`'s fitted model: its
    ``coef_`` (dense, after `sparsify`), ``intercept_``, ``classes_`` and
    ``n_features_in_``, and the parameters the two classes share."""
    import numpy as np
    import scipy.sparse as sp
    from sklearn import svm

    twin_class = getattr(svm, type(estimator).__name__)
    shared = twin_class().get_params().keys()
    twin = twin_class(**{key: value for key, value in estimator.get_params().items()
                         if key in shared})
    for name in _LINEAR_FITTED:
        if hasattr(estimator, name):
            setattr(twin, name, getattr(estimator, name))
    if sp.issparse(twin.coef_):
        twin.coef_ = twin.coef_.toarray()
    twin.coef_ = np.asarray(twin.coef_, dtype=np.float64)
    return twin


def to_onnx(estimator, X_sample, *, options=None, target_opset=None):
    """A fitted libsmo estimator as an ONNX model (skl2onnx's `ModelProto`).

    The estimator's fitted attributes go through skl2onnx's converter of the
    scikit-learn SVM of the same kind, so that onnxruntime computes the estimator's
    labels, probabilities and decision values in ONNX's float32 SVM operators.

    Parameters
    ----------
    estimator : fitted SVC, NuSVC, SVR, NuSVR, OneClassSVM, LinearSVC or LinearSVR
        The kernel SVMs with a named kernel ("linear", "poly", "rbf", "sigmoid"):
        ONNX's SVM operators have no precomputed or callable kernels.
    X_sample : array-like of shape (n_samples, n_features)
        A few rows of input, from which skl2onnx takes the input's width and type
        (float32 rows give a float32 input, float64 rows a float64 input).
    options : dict, optional
        The skl2onnx converter options for the estimator, e.g. ``{"zipmap": False}`` (a
        classifier's probabilities as one tensor, not a list of dicts) or
        ``{"raw_scores": True}`` (decision values instead of probabilities: for two
        classes the columns -d and d). With float64 rows "zipmap" defaults to False,
        as onnxruntime's ZipMap takes float32 only. LinearSVC's ``probabilities`` are
        its decision values, as scikit-learn's LinearSVC's are in skl2onnx: for two
        classes one column, d.
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
        Not one of the seven estimators, a precomputed or callable kernel, or a
        LinearSVC with float64 `X_sample` (skl2onnx's LinearSVC takes float32 only).
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
    >>> reg = libsmo.LinearSVR().fit(X, [0., 1., 1., 0.5])
    >>> [output.name for output in libsmo.onnx.to_onnx(reg, X).graph.output]
    ['variable']
    """
    skl2onnx = _skl2onnx()
    import numpy as np

    from libsmo.estimators._sklearn_compat import check_is_fitted

    name = type(estimator).__name__
    if name not in (*_SKLEARN_TWINS, *_LINEAR_TWINS) or not type(
            estimator).__module__.startswith("libsmo."):
        raise TypeError("to_onnx converts libsmo's SVC, NuSVC, SVR, NuSVR, OneClassSVM, "
                        f"LinearSVC and LinearSVR, not {name}")
    check_is_fitted(estimator)
    if name in _SKLEARN_TWINS and (callable(estimator.kernel)
                                   or estimator.kernel == "precomputed"):
        raise TypeError("ONNX's SVM operators compute the linear, poly, rbf and sigmoid "
                        f"kernels, not kernel={estimator.kernel!r}")
    register_converters()
    X_sample = np.asarray(X_sample)
    if X_sample.dtype not in (np.float32, np.float64):
        X_sample = X_sample.astype(np.float32)
    if name == "LinearSVC" and X_sample.dtype == np.float64:
        # (skl2onnx writes a LinearSVC's scores with post_transform NONE, which it
        # refuses for double inputs, scikit-learn's LinearSVC's too)
        raise TypeError("skl2onnx converts LinearSVC for float32 input only: give "
                        "X_sample as float32 (X_sample.astype(numpy.float32))")
    options = dict(options or {})
    if X_sample.dtype == np.float64 and hasattr(estimator, "classes_"):
        # onnxruntime's ZipMap takes float32 probabilities only
        options.setdefault("zipmap", False)
    return skl2onnx.to_onnx(estimator, X_sample[:1],
                            options={id(estimator): options} if options else None,
                            target_opset=target_opset)
