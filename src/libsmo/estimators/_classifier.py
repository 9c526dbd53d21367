"""SVC and NuSVC's common part: scikit-learn's classifier on LIBSVM's one-vs-one machine.

Classifiers keep scikit-learn's sorted `classes_` while training each one-vs-one problem
exactly as scikit-learn's bundled LIBSVM does (see `_BaseClassifier.fit`); predictions
are LIBSVM's votes, the "ovr" decision function scikit-learn's.
"""
import numpy as np

from libsmo._utils.constraints import check_positive
from libsmo.estimators._base import _BaseSVM
from libsmo.estimators._input import (
    check_targets,
    effective_sample_weight,
    sorted_classes,
)
from libsmo.estimators._sklearn_compat import (
    ClassifierMixin,
    NotFittedError,
    check_is_fitted,
)
from libsmo.estimators._warm_start import previous_fit, warm_init
from libsmo.model import _one_vs_one as ovo


def wants_probability(estimator):
    """Whether a classifier's probability parameter asks for the probability model
    (scikit-learn 1.9's default "deprecated" does not)."""
    return not isinstance(estimator.probability, str) and bool(estimator.probability)


def probability_params(estimator):
    """train's probability keywords of a classifier (its folds' random source is drawn
    by `_BaseSVM._fit_model`, as scikit-learn's fit draws it)."""
    return dict(probability=True) if wants_probability(estimator) else {}


class _BaseClassifier(ClassifierMixin, _BaseSVM):
    """C-SVC and nu-SVC with scikit-learn's class layout."""

    def fit(self, X, y, sample_weight=None):
        """Fit the classifier on samples X and labels y.

        Each pair of classes is one binary problem, trained on its samples in the
        order LIBSVM's one-vs-one training takes them from scikit-learn's sorted
        classes, so that each problem is the one scikit-learn's LIBSVM solves.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples; for kernel='precomputed', the (n_samples, n_samples)
            Gram matrix; for a callable kernel, anything the kernel reads.
        y : array-like of shape (n_samples,)
            Class labels (numbers or strings), two classes or more.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights multiplying C; a sample of weight 0 or less is left
            out (scikit-learn's rule).

        Returns
        -------
        self
            The fitted estimator itself.

        Raises
        ------
        ValueError
            Fewer than two classes, a class without a sample of positive weight, an
            infeasible nu (NuSVC), or bad data or parameters; the message names the
            problem.

        Examples
        --------
        >>> import numpy as np
        >>> from libsmo import SVC
        >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
        >>> clf = SVC(kernel="linear").fit(X, ["a", "a", "b", "b"])
        >>> clf.classes_, clf.support_
        (array(['a', 'b'], dtype='<U1'), array([0, 2], dtype=int32))
        """
        previous = previous_fit(self)
        y = check_targets(self, y)
        X, y = self._start_fit(X, y)
        self.classes_, encoded = sorted_classes(y)
        if len(self.classes_) < 2:
            raise ValueError("The number of classes has to be greater than one; got "
                             f"{len(self.classes_)} class")
        self.class_weight_ = self._class_weights(encoded)
        sample_weight = effective_sample_weight(sample_weight, len(encoded))
        taking_part = (np.ones(len(encoded), dtype=bool) if sample_weight is None
                       else sample_weight > 0)
        self._check_classes_taking_part(encoded, taking_part)
        # LIBSVM orders classes by first appearance; scikit-learn sorts them. Moving the
        # first example of each class that takes part, in sorted order, to the front
        # gives the sorted order and keeps every class's examples in their original
        # order, so each one-vs-one problem is exactly the one scikit-learn's libsvm
        # solves.
        candidates = np.flatnonzero(taking_part)
        first = candidates[np.unique(encoded[candidates], return_index=True)[1]]
        rest = np.ones(len(encoded), dtype=bool)
        rest[first] = False
        rows = np.concatenate([first, np.flatnonzero(rest)])
        # LIBSVM and scikit-learn apply class weights to C, which nu-SVC does not have
        class_weight = (None if self._svm_type == "nu_svc"
                        else dict(enumerate(self.class_weight_)))
        if self._kernel_name() == "precomputed":
            # the Gram matrix reordered (its columns are rows too)
            weights = None if sample_weight is None else sample_weight[rows]
            model = self._fit_model(X[np.ix_(rows, rows)], encoded[rows], weights,
                                    class_weight=class_weight,
                                    init=warm_init(previous, len(rows), rows,
                                                   self.classes_),
                                    n_classes=len(self.classes_),
                                    **self._formulation_params())
            # the model speaks of the caller's rows (a precomputed kernel's columns at
            # prediction time are the caller's training rows)
            model.support = rows[model.support]
        else:
            # the rows are read in that order through the index: a reordered copy of
            # X would hold the data twice during the fit
            model = self._fit_model(X, encoded, sample_weight, class_weight=class_weight,
                                    init=warm_init(previous, len(rows), None,
                                                   self.classes_),
                                    n_classes=len(self.classes_), order=rows,
                                    **self._formulation_params())
        self._set_fitted(model)
        return self

    def _check_classes_taking_part(self, encoded, taking_part):
        """Every class needs a sample of positive weight (scikit-learn's messages for
        the case where at most one class is left)."""
        present = np.bincount(encoded[taking_part], minlength=len(self.classes_)) > 0
        if present.sum() < 2:
            if self._svm_type == "nu_svc":
                raise ValueError("specified nu is infeasible: the samples of positive "
                                 "weight are all of one class")
            raise ValueError("Invalid input - all samples with positive weights belong to "
                             "the same class.")
        if not present.all():
            missing = self.classes_[~present][0]
            raise ValueError(f"class {missing!r} has no sample of positive weight: give it "
                             "one, or leave its samples out of X and y")

    def _set_model(self, model):
        # scikit-learn's sorted classes; the internal model labels them 0..k-1 so that
        # its predictions index classes_
        if len(np.unique(model.classes)) != len(model.classes):
            raise ValueError(f"the model's class labels repeat: {model.classes.tolist()}")
        order = np.argsort(model.classes, kind="stable")
        self.probability = model.probA is not None
        # LIBSVM breaks ties between votes, and pairwise coupling stops at a tolerance,
        # in its own class order: predictions and probabilities come from the model as
        # svm-predict sees it (labels 0..k-1 in sorted order), so they are LIBSVM's
        self._libsvm_order_model = model.replace(classes=np.argsort(order))
        self._libsvm_order = order
        model = model.with_class_order(order)
        self.classes_ = model.classes
        model = model.replace(classes=np.arange(len(self.classes_)))
        self._set_fitted(model)

    def _finish_fitted(self, model):
        self._n_support = np.asarray(model.n_support, dtype=np.int32)
        if len(self.classes_) == 2:
            self.intercept_ = -self.intercept_
            self.dual_coef_ = -self.dual_coef_

    def _class_weights(self, encoded, allow_zero=False):
        k = len(self.classes_)
        if self.class_weight is None:
            return np.ones(k)
        if isinstance(self.class_weight, str):   # "balanced", the one string allowed
            return len(encoded) / (k * np.bincount(encoded, minlength=k))
        weights = np.ones(k)
        class_weight = dict(self.class_weight)
        unweighted = []
        for i, c in enumerate(self.classes_):
            if c in class_weight:
                weights[i] = check_positive(class_weight[c], f"class_weight[{c!r}]",
                                            allow_zero=allow_zero)
            else:
                unweighted.append(c)
        # scikit-learn's compute_class_weight: labels that are not classes are refused
        # only when some class has no weight (LIBSVM warns and goes on)
        if unweighted and k - len(unweighted) != len(class_weight):
            raise ValueError(f"The classes, {np.array(unweighted).tolist()}, are not in "
                             "class_weight (its other labels are not classes of y)")
        return weights

    def decision_function(self, X):
        """Compute the decision values of the samples in X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples; for kernel='precomputed', the (n_samples, n_train) kernel values
            against the training samples.

        Returns
        -------
        ndarray of shape (n_samples,), (n_samples, n_classes) or (n_samples, n_pairs)
            For two classes, one value a sample, positive for ``classes_[1]``. For
            more, scikit-learn's one-vs-rest scores (decision_function_shape='ovr'),
            or LIBSVM's one-vs-one values in the pair order (0, 1), (0, 2), ...,
            (1, 2), ..., positive for the pair's first class ('ovo').

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from libsmo import SVC
        >>> X, y = load_iris(return_X_y=True)
        >>> SVC().fit(X, y).decision_function(X[[0, 50, 100]]).round(2)
        array([[ 2.24,  1.16, -0.26],
               [-0.22,  2.22,  1.06],
               [-0.23,  0.84,  2.25]])
        >>> SVC(decision_function_shape="ovo").fit(X, y).decision_function(X[:1]).round(2)
        array([[1.26, 1.14, 2.2 ]])
        """
        dec = self._decision(X)
        if len(self.classes_) == 2:
            return -dec
        if self.decision_function_shape == "ovr":
            return ovo.ovr_scores(dec, len(self.classes_))
        return dec

    def predict(self, X):
        """Predict the class labels of the samples in X.

        Labels come from LIBSVM's one-vs-one votes, ties going to the first class
        in ``classes_`` order; with ``break_ties=True`` (and
        decision_function_shape='ovr', more than two classes), from the largest
        one-vs-rest score.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples; for kernel='precomputed', the (n_samples, n_train) kernel values
            against the training samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels of ``classes_``.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from libsmo import SVC
        >>> X, y = load_iris(return_X_y=True)
        >>> SVC().fit(X, y).predict(X[[0, 50, 100]])
        array([0, 1, 2])
        """
        check_is_fitted(self)
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
        if self.break_ties and len(self.classes_) > 2:
            index = np.argmax(self.decision_function(X), axis=1)
        else:
            X, _ = self._validate_X(X, reset=False)
            self._check_internal_representation()
            model = getattr(self, "_libsvm_order_model", self._model)
            index = model.predict(X).astype(np.intp)
        return self.classes_.take(index)

    def _check_proba(self, attribute="predict_proba"):
        if not wants_probability(self):
            # scikit-learn's words (its available_if), the reason chained as there
            raise AttributeError(f"This {type(self).__name__!r} has no attribute "
                                 f"{attribute!r}") from AttributeError(
                "predict_proba is not available when probability=False")

    @property
    def predict_proba(self):
        """Class probabilities of samples, as LIBSVM's probability model gives them.

        Each pair's decision value goes through the pair's Platt sigmoid, and the
        pairs' probabilities are coupled into class probabilities by Wu, Lin and
        Weng's method (for two classes too, as scikit-learn does; a model read by
        `from_model` gives svm-predict's ``-b 1`` values). The most probable class
        can differ from `predict`'s, which comes from the votes.

        This property returns a method (scikit-learn's available_if): reading it
        raises AttributeError unless ``probability=True``, so that
        ``hasattr(clf, "predict_proba")`` says whether it is available. The method
        takes X and returns the probabilities:

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples; for kernel='precomputed', the (n_samples, n_train) kernel values
            against the training samples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The probability of each class, columns in ``classes_`` order.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from libsmo import SVC
        >>> X, y = load_iris(return_X_y=True)
        >>> hasattr(SVC(), "predict_proba")
        False
        >>> clf = SVC(probability=True, random_state=0).fit(X, y)
        >>> clf.predict_proba(X[[0, 50, 100]]).round(2)
        array([[0.98, 0.01, 0.01],
               [0.01, 0.9 , 0.09],
               [0.01, 0.  , 0.99]])
        """
        self._check_proba()
        return self._predict_proba

    def _predict_proba(self, X):
        check_is_fitted(self)
        if self._model.probA is None:
            # probability switched on after a fit without it (scikit-learn's error)
            raise NotFittedError("predict_proba is not available when fitted with "
                                 "probability=False")
        X, _ = self._validate_X(X, reset=False)
        self._check_internal_representation()
        # a fitted estimator's are scikit-learn's; a model file's, svm-predict's
        flavor = getattr(self, "_flavor", "sklearn")
        if hasattr(self, "_libsvm_order_model"):
            return self._libsvm_order_model.predict_proba(
                X, flavor=flavor)[:, self._libsvm_order]
        return self._model.predict_proba(X, flavor=flavor)

    @property
    def predict_log_proba(self):
        """Logarithms of the class probabilities of `predict_proba`.

        This property returns a method (scikit-learn's available_if): reading it
        raises AttributeError unless ``probability=True``. The method takes X and
        returns the logarithms:

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples, as for `predict_proba`.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            ``np.log(predict_proba(X))``, columns in ``classes_`` order.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_iris
        >>> from libsmo import SVC
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = SVC(probability=True, random_state=0).fit(X, y)
        >>> log_proba = clf.predict_log_proba(X[:3])
        >>> log_proba.shape, bool(np.allclose(np.exp(log_proba), clf.predict_proba(X[:3])))
        ((3, 3), True)
        """
        self._check_proba("predict_log_proba")
        return lambda X: np.log(self._predict_proba(X))
