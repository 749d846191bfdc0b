#include "ava/desktop/rows_model.hpp"

namespace ava::desktop {

RowsModel::RowsModel(QStringList roles, QObject* parent)
    : QAbstractListModel(parent), roles_(std::move(roles)) {}

int RowsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : count(); }

QHash<int, QByteArray> RowsModel::roleNames() const {
  QHash<int, QByteArray> names;
  for (int i = 0; i < roles_.size(); ++i) names.insert(Qt::UserRole + 1 + i, roles_[i].toUtf8());
  return names;
}

QVariant RowsModel::data(const QModelIndex& index, int role) const {
  const int column = role - Qt::UserRole - 1;
  if (!index.isValid() || index.row() >= count() || column < 0 || column >= roles_.size())
    return {};
  return rows_[index.row()].value(roles_[column]);
}

QVariantMap RowsModel::get(int row) const {
  return row >= 0 && row < count() ? rows_[row] : QVariantMap{};
}

int RowsModel::indexOf(const QString& id) const {
  for (int i = 0; i < count(); ++i)
    if (rows_[i].value(QStringLiteral("id")).toString() == id) return i;
  return -1;
}

void RowsModel::set_rows(QList<QVariantMap> rows) {
  bool same_ids = rows.size() == rows_.size();
  for (int i = 0; same_ids && i < rows.size(); ++i)
    same_ids = rows[i].value(QStringLiteral("id")) == rows_[i].value(QStringLiteral("id"));
  if (same_ids) {
    rows_ = std::move(rows);
    if (!rows_.isEmpty()) emit dataChanged(index(0), index(count() - 1));
    return;
  }
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
  emit countChanged();
}

}  // namespace ava::desktop
